/// A key for a value in ``DependencyValues``: a clock, an API client, a database.
///
/// Give it a ``liveValue`` for the running app and, usually, a ``testValue`` for tests, then expose
/// it with a computed property on ``DependencyValues``:
///
/// ```swift
/// struct APIClient: Sendable {
///   var fetchItems: @Sendable () async throws -> [Item]
/// }
///
/// enum APIClientKey: DependencyKey {
///   static let liveValue = APIClient(fetchItems: { try await URLSession.shared.items() })
///   static let testValue = APIClient(fetchItems: { [] })
/// }
///
/// extension DependencyValues {
///   var apiClient: APIClient {
///     get { self[APIClientKey.self] }
///     set { self[APIClientKey.self] = newValue }
///   }
/// }
/// ```
///
/// A key without a `testValue` reports "unimplemented dependency" as a ``Diagnostic`` when a test
/// uses it, then falls back to the live value, so a test never talks to the real world unnoticed.
public protocol DependencyKey: TestDependencyKey {
  /// The type of the dependency: restated so that it is inferred from ``liveValue`` alone.
  associatedtype Value
  /// The value used when the app runs.
  static var liveValue: Value { get }
  /// The value used in tests (``DependencyContext/test``): by default, a report that it is
  /// unimplemented, then the live value.
  static var testValue: Value { get }
}

/// A key for a dependency whose live value is declared elsewhere: TCA's `TestDependencyKey`.
///
/// A client's interface and its test value live in a small module that features import; its live
/// value, which talks to the world, in the app's module, which conforms the key to
/// ``DependencyKey``. Features then build and test without linking the live implementation:
///
/// ```swift
/// // In the client's module:
/// extension APIClient: TestDependencyKey {
///   static let testValue = APIClient()   // every endpoint unimplemented
/// }
/// // In the app's module:
/// extension APIClient: DependencyKey {
///   static let liveValue = APIClient(fetch: { try await URLSession.shared.items() })
/// }
/// ```
///
/// Run live without a ``DependencyKey`` conformance, a key reports a ``Diagnostic`` of kind
/// ``Diagnostic/Kind/unimplementedDependency`` and serves its test value.
public protocol TestDependencyKey: Sendable {
  /// The type of the dependency.
  associatedtype Value: Sendable
  /// The value used in tests (``DependencyContext/test``).
  static var testValue: Value { get }
}

extension DependencyKey {
  /// The live value as `Value`: how a key seen only as a ``TestDependencyKey`` reaches it.
  static func liveValue<Wanted>(as type: Wanted.Type) -> Wanted? { liveValue as? Wanted }
}

extension DependencyKey {
  /// The default test value: reports that the dependency is unimplemented in tests, then uses the
  /// live value.
  public static var testValue: Value {
    DependencyValues.reportCurrent(
      Diagnostic(
        .unimplementedDependency,
        "unimplemented dependency '\(Self.self)' used in a test; give its key a 'testValue' or "
          + "override it for the test"))
    return liveValue
  }
}

/// Whether dependencies resolve to their live or their test values.
public enum DependencyContext: Sendable, Hashable {
  /// The running program: ``DependencyKey/liveValue``.
  case live
  /// A test: ``DependencyKey/testValue``.
  case test
}
