import Synchronization

/// A memoized, read-only projection of a Station's state that can be observed and derived further.
///
/// ```swift
/// let visible = station.derived { $0.todos.filter { !$0.isDone } }
/// let count = visible.derived { $0.count }          // derived from a derived
/// for await todos in visible.values { render(todos) }
/// print(await count.value)
/// ```
///
/// The projection is computed once per reduction, on the Station's actor, however many consumers
/// iterate ``values``; a value equal to the previous one is not delivered again. A `Derived` keeps
/// only its value, never a whole-state snapshot, and keeps its Station alive.
public final class Derived<Value: Equatable & Sendable>: Sendable {
  private let group: any ValueGroup<Value>
  /// Runs a closure on the Station's handler with the current value.
  private let withCurrent: @Sendable (@escaping @Sendable (Value) -> Void) async -> Void
  private let detach: @Sendable () -> Void
  /// What this `Derived` keeps alive: its Station, or the `Derived` it derives from.
  private let owner: (any Sendable)?

  init(
    group: any ValueGroup<Value>,
    withCurrent: @escaping @Sendable (@escaping @Sendable (Value) -> Void) async -> Void,
    detach: @escaping @Sendable () -> Void, owner: (any Sendable)? = nil
  ) {
    self.group = group
    self.withCurrent = withCurrent
    self.detach = detach
    self.owner = owner
  }

  deinit {
    detach()
  }

  /// The current value, once every action poured before this read has been reduced.
  public var value: Value {
    get async {
      let result = Lock<Value?>(nil)
      await withCurrent { value in result.withLock { $0 = value } }
      return result.withLock { $0! }
    }
  }

  /// The current value, then each new one.
  public var values: StateStream<Value> {
    let group = self.group
    return StateStream { [self] continuation in
      await withCurrent { current in
        group.attach(continuation, current: current, joined: false) {}
      }
      _ = self  // The stream keeps this Derived alive while it is iterated.
    }
  }

  /// A projection of this one's value, computed once each time this value changes.
  public func derived<Derivation: Equatable & Sendable>(
    _ compute: @escaping @Sendable (Value) -> Derivation
  ) -> Derived<Derivation> {
    let child = SliceGroup<Value, Derivation>(slice: compute, isDuplicate: { $0 == $1 })
    let parentGroup = group
    parentGroup.add(dependent: child)
    let withCurrent = self.withCurrent
    return Derived<Derivation>(
      group: child,
      withCurrent: { body in
        await withCurrent { parentValue in body(child.current(computingFrom: parentValue)) }
      },
      detach: { parentGroup.remove(dependent: child) },
      owner: self)
  }

  /// How many times the projection was computed: for tests of memoization.
  var computations: Int { group.computations.load(ordering: .relaxed) }
}
