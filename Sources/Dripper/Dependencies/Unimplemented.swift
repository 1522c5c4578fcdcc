/// An endpoint of a dependency that a test has not implemented: calling it reports an
/// ``Diagnostic/Kind/unimplementedDependency`` diagnostic naming `description` (a test failure in
/// a `TestStation`), then returns `placeholder`.
///
/// Write a `testValue` endpoint by endpoint with it, so that a test fails when it reaches an
/// endpoint it did not override, and never runs live code:
///
/// ```swift
/// struct APIClient: Sendable {
///   var fetch: @Sendable (Int) async throws -> [Item]
///   var save: @Sendable ([Item]) async throws -> Void
/// }
///
/// extension APIClientKey {
///   static let testValue = APIClient(
///     fetch: unimplemented("APIClient.fetch", placeholder: []),
///     save: unimplemented("APIClient.save")
///   )
/// }
/// ```
///
/// The diagnostic goes where the calling task's dependencies send them: to the test that built
/// the `TestStation` whose effect calls the endpoint.
public func unimplemented<each Argument, Result>(
  _ description: String, placeholder: Result,
  fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) -> Result where Result: Sendable {
  { (_: repeat each Argument) in
    reportUnimplemented(description, fileID: fileID, line: line)
    return placeholder
  }
}

/// An asynchronous endpoint that a test has not implemented: calling it reports an
/// ``Diagnostic/Kind/unimplementedDependency`` diagnostic naming `description`, then returns
/// `placeholder`.
public func unimplemented<each Argument, Result>(
  _ description: String, placeholder: Result,
  fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) async -> Result where Result: Sendable {
  { (_: repeat each Argument) async in
    reportUnimplemented(description, fileID: fileID, line: line)
    return placeholder
  }
}

/// A throwing endpoint that a test has not implemented: calling it reports an
/// ``Diagnostic/Kind/unimplementedDependency`` diagnostic naming `description`, then throws
/// ``UnimplementedEndpoint``.
///
/// ```swift
/// static let testValue = APIClient(save: unimplemented("APIClient.save"))
/// ```
public func unimplemented<each Argument, Result>(
  _ description: String, fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) async throws -> Result {
  { (_: repeat each Argument) async throws in
    reportUnimplemented(description, fileID: fileID, line: line)
    throw UnimplementedEndpoint(description: description)
  }
}

/// An endpoint that answers with `body` but is not expected to be called: calling it reports the
/// ``Diagnostic/Kind/unimplementedDependency`` diagnostic naming `description`, as
/// `unimplemented(_:placeholder:)` does, then returns what `body`
/// returns. What `@DependencyClient` (DripperMacros) makes of an endpoint written with a default,
/// as TCA's does:
///
/// ```swift
/// var requestAuthorization: @Sendable () async -> Status = unimplemented(
///   "SpeechClient.requestAuthorization", default: { .notDetermined })
/// ```
public func unimplemented<each Argument, Result>(
  _ description: String, default body: @escaping @Sendable (repeat each Argument) -> Result,
  fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) -> Result {
  { (argument: repeat each Argument) in
    reportUnimplemented(description, fileID: fileID, line: line)
    return body(repeat each argument)
  }
}

/// An asynchronous endpoint that answers with `body` but is not expected to be called: see
/// `unimplemented(_:default:)`.
public func unimplemented<each Argument, Result>(
  _ description: String, default body: @escaping @Sendable (repeat each Argument) async -> Result,
  fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) async -> Result {
  { (argument: repeat each Argument) async in
    reportUnimplemented(description, fileID: fileID, line: line)
    return await body(repeat each argument)
  }
}

/// A throwing endpoint that answers with `body` but is not expected to be called: see
/// `unimplemented(_:default:)`.
public func unimplemented<each Argument, Result>(
  _ description: String, default body: @escaping @Sendable (repeat each Argument) async throws -> Result,
  fileID: StaticString = #fileID, line: UInt = #line
) -> @Sendable (repeat each Argument) async throws -> Result {
  { (argument: repeat each Argument) async throws in
    reportUnimplemented(description, fileID: fileID, line: line)
    return try await body(repeat each argument)
  }
}

/// What an unimplemented throwing endpoint throws (see
/// `unimplemented(_:fileID:line:)`).
public struct UnimplementedEndpoint: Error, Sendable, CustomStringConvertible {
  /// The endpoint's name, as given to `unimplemented`.
  public let description: String
}

private func reportUnimplemented(_ description: String, fileID: StaticString, line: UInt) {
  DependencyValues.reportCurrent(
    Diagnostic(
      .unimplementedDependency,
      "unimplemented endpoint '\(description)' (declared at \(fileID):\(line)) was called; "
        + "override it for the test"))
}
