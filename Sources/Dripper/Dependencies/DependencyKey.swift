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
public protocol DependencyKey: Sendable {
  /// The type of the dependency.
  associatedtype Value: Sendable
  /// The value used when the app runs.
  static var liveValue: Value { get }
  /// The value used in tests (``DependencyContext/test``).
  static var testValue: Value { get }
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
