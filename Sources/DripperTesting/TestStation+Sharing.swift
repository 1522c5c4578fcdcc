import Dripper

extension TestStation {
  /// Delivers the values written to `shared` by others as `action`, received like an effect's
  /// action: assert each with `receive(_:assert:)`. Starts with
  /// one `action` carrying the value now, to receive as well.
  ///
  /// ```swift
  /// let settings = SharedValue(Settings())          // the test's own, in memory
  /// let station = TestStation(initialState: Todos.State()) { Todos(settings: settings) }
  /// station.share(\.settings, with: settings, action: .settingsChanged)
  /// await station.receive(.settingsChanged(Settings()))
  /// settings.set(Settings(sort: .title))
  /// await station.receive(.settingsChanged(Settings(sort: .title))) { $0.settings.sort = .title }
  /// ```
  public func share<Value>(
    _ keyPath: any WritableKeyPath<State, Value> & Sendable, with shared: SharedValue<Value>,
    action: CasePath<Action, Value>
  ) {
    station.share(
      keyPath, with: shared,
      action: CasePath(
        { TestAction<Action>.received(action.embed($0)) },
        extract: { testAction in
          switch testAction {
          case .received(let poured), .poured(let poured): action.extract(poured)
          }
        }))
  }
}
