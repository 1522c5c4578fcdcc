import Dripper

/// The past and future values of a part of the state, for undo and redo.
struct History<Value: Equatable & Sendable>: Equatable, Sendable {
  private(set) var past: [Value] = []
  private(set) var future: [Value] = []
  /// How many past values are kept; the oldest go first.
  let limit: Int

  init(limit: Int) { self.limit = limit }

  var canUndo: Bool { !past.isEmpty }
  var canRedo: Bool { !future.isEmpty }

  /// Remembers `old`, which a change replaced; a change forgets what could be redone.
  mutating func record(_ old: Value) {
    past.append(old)
    if past.count > limit { past.removeFirst(past.count - limit) }
    future.removeAll()
  }

  /// Puts back the previous value; returns `false` if there is none.
  mutating func undo(_ current: inout Value) -> Bool {
    guard let previous = past.popLast() else { return false }
    future.append(current)
    current = previous
    return true
  }

  /// Puts back the value undone last; returns `false` if there is none.
  mutating func redo(_ current: inout Value) -> Bool {
    guard let next = future.popLast() else { return false }
    past.append(current)
    current = next
    return true
  }
}

extension Dripper {
  /// Records each change of the value at `value` in `history`, and undoes or redoes them for the
  /// `undo` and `redo` actions: bloc's replay, as a modifier for any feature.
  ///
  /// ```swift
  /// Drip { … }
  ///   .undoable(\.rows, history: \.history, undo: .undo, redo: .redo)
  /// ```
  func undoable<Value: Equatable & Sendable>(
    _ value: any WritableKeyPath<State, Value> & Sendable,
    history: any WritableKeyPath<State, History<Value>> & Sendable,
    undo: CasePath<Action, Void>, redo: CasePath<Action, Void>
  ) -> Undoable<Self, Value> {
    Undoable(base: self, value: value, history: history, undo: undo, redo: redo)
  }
}

/// A dripper whose changes to part of its state can be undone: see ``Dripper/undoable(_:history:undo:redo:)``.
struct Undoable<Base: Dripper, Value: Equatable & Sendable>: Dripper {
  typealias Body = Never

  let base: Base
  let value: any WritableKeyPath<Base.State, Value> & Sendable
  let history: any WritableKeyPath<Base.State, History<Value>> & Sendable
  let undo: CasePath<Base.Action, Void>
  let redo: CasePath<Base.Action, Void>

  func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    if undo.matches(action) || redo.matches(action) {
      var history = state[keyPath: self.history]
      var value = state[keyPath: self.value]
      _ = undo.matches(action) ? history.undo(&value) : history.redo(&value)
      state[keyPath: self.history] = history
      state[keyPath: self.value] = value
      return base.reduce(into: &state, action: action)
    }
    let before = state[keyPath: value]
    let effect = base.reduce(into: &state, action: action)
    if state[keyPath: value] != before { state[keyPath: history].record(before) }
    return effect
  }
}
