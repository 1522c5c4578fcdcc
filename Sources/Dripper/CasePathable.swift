/// An enum whose cases can be changed, tested and read in place by their case paths: what TCA's
/// `@CasePathable` gives an enum state, without a macro. Conform with an empty extension:
///
/// ```swift
/// extension TicTacToe.State: CasePathable {}
///
/// await station.pour(.login(.view(.set(\.email, "blob@pointfree.co")))) {
///   $0.modify(.login) { $0.email = "blob@pointfree.co" }   // TCA: $0.modify(\.login) { … }
/// }
/// ```
///
/// A case is named by a ``CasePath`` declared for it (`.login`) or by the case itself
/// (`TicTacToe.State.login`), whose extraction is found by reflection (see
/// ``CasePath/init(_:)``).
public protocol CasePathable {}

extension CasePathable {
  /// Changes the payload of the case in place. If the value is in another case, nothing changes
  /// and a ``Diagnostic`` says so — a test failure in a `TestStation`'s assertion, as TCA's.
  ///
  /// ```swift
  /// $0.modify(.login) { $0.email = "blob@pointfree.co" }
  /// ```
  public mutating func modify<Value>(
    _ path: CasePath<Self, Value>, _ body: (inout Value) throws -> Void
  ) rethrows {
    guard var value = path.extract(self) else {
      DependencyValues.reportCurrent(
        Diagnostic(
          .other,
          "modify found \(Dump.line(self)), not the case it was asked to change: nothing was changed"))
      return
    }
    try body(&value)
    self = path.embed(value)
  }

  /// Changes the payload of the case `embed` makes (`State.login`) in place: ``modify(_:_:)-(CasePath<Self,Value>,_)``
  /// with the case named by the case itself.
  public mutating func modify<Value>(
    _ embed: @escaping @Sendable (Value) -> Self, _ body: (inout Value) throws -> Void
  ) rethrows {
    try modify(CasePath(embed), body)
  }

  /// Whether the value is in the case: TCA's `state.is(\.login)`.
  public func `is`<Value>(_ path: CasePath<Self, Value>) -> Bool {
    path.matches(self)
  }

  /// The payload of the case, or `nil` in another case; set, the value moves to the case with
  /// it (setting `nil` changes nothing). TCA's `state.login`, `$0.login?.email = "x"`.
  ///
  /// ```swift
  /// $0[case: .login]?.email = "blob@pointfree.co"
  /// ```
  public subscript<Value>(case path: CasePath<Self, Value>) -> Value? {
    get { path.extract(self) }
    set { if let newValue { self = path.embed(newValue) } }
  }
}
