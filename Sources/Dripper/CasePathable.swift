/// An enum whose cases can be changed, tested and read in place by their case paths: what TCA's
/// `@CasePathable` gives an enum. `@CasePathable` from `DripperMacros` conforms an enum and writes
/// its table of case paths (``AllCasePaths``), which key paths name as TCA's do:
/// `$0.modify(\.login) { … }`, `receive(\.login.loginResponse.success)`.
///
/// Without the macro, conform with an empty extension, and name cases by their ``CasePath``s:
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
/// ``CasePath/init(_:)-((Value)->Root)``).
public protocol CasePathable {
  /// The enum's case paths by name, one property a case, which key paths name (`\.login`); TCA's
  /// and swift-case-paths' shape. `@CasePathable` from `DripperMacros` writes it; an enum without it
  /// names its cases by ``CasePath`` extensions or by the cases themselves.
  ///
  /// ```swift
  /// extension TicTacToe.Action: CasePathable {
  ///   struct AllCasePaths: Sendable {
  ///     var login: CasePath<TicTacToe.Action, Login.Action> {
  ///       CasePath(TicTacToe.Action.login) { if case .login(let v) = $0 { v } else { nil } }
  ///     }
  ///   }
  ///   static var allCasePaths: AllCasePaths { AllCasePaths() }
  /// }
  /// ```
  associatedtype AllCasePaths: Sendable = NoCasePathsListed
  /// The table of the enum's case paths: ``CaseKeyPath``s are key paths into it.
  static var allCasePaths: AllCasePaths { get }
}

/// The table of an enum that lists no case paths: the default ``CasePathable/AllCasePaths``.
public struct NoCasePathsListed: Sendable {
  /// The empty table.
  public init() {}
}

extension CasePathable where AllCasePaths == NoCasePathsListed {
  /// The empty table: the enum names its cases by ``CasePath`` extensions or by the cases.
  public static var allCasePaths: NoCasePathsListed { NoCasePathsListed() }
}

/// A case path named as TCA names one, by a key path into the enum's table of case paths:
/// `\.login`, `\.login.view.delegate`, `\.path[id: 0].detail.save`. Every API that takes a
/// ``CasePath`` takes one.
///
/// ```swift
/// Scope(state: \.login, action: \.login) { Login() }      // a struct state's field, an action's case
/// await store.receive(\.login.loginResponse.success)    // as TCA's
/// ```
public typealias CaseKeyPath<Root: CasePathable, Value> = KeyPath<Root.AllCasePaths, CasePath<Root, Value>>

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

extension CasePathable {
  /// Changes the payload of the case a key path names, in place: TCA's `$0.modify(\.login) { … }`.
  /// In another case nothing changes and a ``Diagnostic`` says so.
  ///
  /// ```swift
  /// $0.modify(\.login) { $0.email = "blob@pointfree.co" }
  /// ```
  public mutating func modify<Value>(
    _ keyPath: CaseKeyPath<Self, Value>, _ body: (inout Value) throws -> Void
  )
    rethrows
  {
    try modify(CasePath(keyPath), body)
  }

  /// Whether the value is in the case a key path names: TCA's `state.is(\.login)`.
  public func `is`<Value>(_ keyPath: CaseKeyPath<Self, Value>) -> Bool {
    CasePath(keyPath).matches(self)
  }

  /// The payload of the case a key path names, or `nil` in another case; set, the value moves to
  /// the case with it: `$0[case: \.login]?.email = "x"`.
  public subscript<Value>(case keyPath: CaseKeyPath<Self, Value>) -> Value? {
    get { self[case: CasePath(keyPath)] }
    set { self[case: CasePath(keyPath)] = newValue }
  }

  /// The payload of a case by its name, for an enum marked `@dynamicMemberLookup`: TCA's
  /// `$0.destination?.login?.email`. `nil` in another case; set, the value moves to the case.
  ///
  /// ```swift
  /// @CasePathable @dynamicMemberLookup enum Destination { case login(Login.State), game(Game.State) }
  /// $0.destination?.login?.email = "blob@pointfree.co"
  /// ```
  public subscript<Value>(dynamicMember keyPath: CaseKeyPath<Self, Value>) -> Value? {
    get { self[case: CasePath(keyPath)] }
    set { self[case: CasePath(keyPath)] = newValue }
  }
}
