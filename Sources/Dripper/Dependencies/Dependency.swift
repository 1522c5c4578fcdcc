/// Reads a dependency in a dripper or an effect.
///
/// Declare it as a stored property of a ``Dripper``, and read it in the reduction or in an effect:
///
/// ```swift
/// struct Search: Dripper {
///   @Dependency(\.clock) var clock
///   @Dependency(\.apiClient) var api
///
///   var body: some DripperOf<Self> {
///     Drip { state, action in
///       …
///       return .run { [query = state.query] pour in
///         try await clock.sleep(for: .milliseconds(300))
///         await pour(.results(try await api.search(query)))
///       }
///     }
///   }
/// }
/// ```
///
/// The value is resolved when it is read, from the dependencies in force in the current task: the
/// Station's while it reduces, and, in an effect, those in force where the effect was created.
@propertyWrapper
public struct Dependency<Value: Sendable>: Sendable {
  @usableFromInline let read: @Sendable (DependencyValues) -> Value

  /// Reads the dependency at a key path, as in `@Dependency(\.clock)`.
  ///
  /// The key path literal becomes a function that calls the property's getter directly, so a read
  /// costs no key-path interpretation.
  @inlinable
  public init(_ read: @escaping @Sendable (DependencyValues) -> Value) {
    self.read = read
  }

  /// The dependency's current value.
  @inlinable
  public var wrappedValue: Value {
    read(DependencyValues.current)
  }
}

/// Runs `operation` with changed dependencies, for code that is not a dripper: a test's setup, a
/// helper that reads `@Dependency`.
///
/// ```swift
/// let id = withDependencies { $0.uuid = .incrementing } operation: {
///   makeTodo().id
/// }
/// ```
public func withDependencies<Result>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () throws -> Result
) rethrows -> Result {
  var values = DependencyValues.current
  try update(&values)
  return try DependencyValues.bind(values, operation)
}

/// Runs `operation` with changed dependencies; tasks it starts inherit them.
public func withDependencies<Result: Sendable>(
  _ update: (inout DependencyValues) throws -> Void,
  operation: () async throws -> Result
) async rethrows -> Result {
  var values = DependencyValues.current
  try update(&values)
  return try await DependencyValues.bind(values, operation)
}
