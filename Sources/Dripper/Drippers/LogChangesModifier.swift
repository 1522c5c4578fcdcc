extension Dripper {
  /// Prints each action this dripper receives and how it changed the state, as a diff.
  ///
  /// ```swift
  /// Station(initialState: Counter.State()) { Counter().logChanges() }
  /// // received action: .increase
  /// //   - Counter.State(count: 0)
  /// //   + Counter.State(count: 1)
  /// ```
  ///
  /// A state that fits on a line is shown whole, before and after; a larger one is shown field by
  /// field, with the fields that changed marked `-` and `+`. A debugging aid: it renders the whole
  /// state twice per action. The diff engine is Dripper's
  /// own, the same that explains failed test assertions.
  ///
  /// - Parameters:
  ///   - sink: Where the text goes: standard output by default.
  ///   - label: A name printed before each entry, to tell Stations apart.
  public func logChanges(to sink: LogSink = .standardOutput, label: String? = nil) -> some Dripper<
    State, Action
  > {
    _LogChangesModifier(base: self, sink: sink, label: label)
  }
}

/// Where ``Dripper/logChanges(to:label:)`` writes.
public struct LogSink: Sendable {
  let write: @Sendable (String) -> Void

  /// A sink that hands each entry, possibly several lines long, to `write`.
  public init(_ write: @escaping @Sendable (String) -> Void) {
    self.write = write
  }

  /// Standard output.
  public static var standardOutput: LogSink { LogSink { print($0) } }

  /// Standard error.
  public static var standardError: LogSink { LogSink { StandardError.print($0) } }
}

/// A dripper that logs what another does: see ``Dripper/logChanges(to:label:)``.
@usableFromInline
struct _LogChangesModifier<Base: Dripper>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  let base: Base
  let sink: LogSink
  let label: String?

  /// Reduces with the base dripper, then logs the action and the change.
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let old = state
    let effect = base.reduce(into: &state, action: action)
    var entry = (label.map { "[\($0)] " } ?? "") + "received action: " + Dump.line(action)
    if let diff = Diff.lines(from: old, to: state) {
      entry += "\n" + diff.map { "  " + $0 }.joined(separator: "\n")
    } else {
      entry += "\n  (no state change)"
    }
    sink.write(entry)
    return effect
  }

  /// The reduction a Station runs: over the base built once.
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _LogChangesModifier<_BuiltDripper<Base.State, Base.Action>>(
      base: base, sink: sink, label: label)
    return reduction(of: built, audit: audit)
  }

}
