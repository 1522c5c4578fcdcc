import Synchronization
import Testing

@testable import Dripper

/// A client written endpoint by endpoint, as a test value would be.
private struct Client: Sendable {
  var fetch: @Sendable (Int) async throws -> [String]
  var count: @Sendable () -> Int
  var name: @Sendable (Int, String) async -> String
  var save: @Sendable ([String]) async throws -> Void
}

@Suite struct UnimplementedTests {
  @Test func anUnimplementedEndpointReportsItsNameAndReturnsItsPlaceholder() async throws {
    let reported = Lock<[Diagnostic]>([])
    let values = DependencyValues.test { diagnostic in reported.withLock { $0.append(diagnostic) } }
    let client = Client(
      fetch: unimplemented("Client.fetch", placeholder: []),
      count: unimplemented("Client.count", placeholder: 7),
      name: unimplemented("Client.name", placeholder: "?"),
      save: unimplemented("Client.save"))
    try await withDependencies {
      $0 = values
    } operation: { () async throws in
      #expect(try await client.fetch(1) == [])
      #expect(client.count() == 7)
      #expect(await client.name(1, "a") == "?")
      await #expect(throws: UnimplementedEndpoint.self) { try await client.save([]) }
    }
    let messages = reported.withLock { $0 }.map(\.message)
    #expect(messages.count == 4)
    #expect(messages.allSatisfy { $0.hasPrefix("unimplemented endpoint 'Client.") })
    #expect(reported.withLock { $0 }.allSatisfy { $0.kind == .unimplementedDependency })
  }

  /// Issue 53: a key whose live value is declared in a module not linked reports it when run live,
  /// and serves its test value.
  @Test func aTestKeyWithoutALiveValueReportsItWhenRunLive() {
    let reported = Lock<[Diagnostic]>([])
    var values = DependencyValues()
    values.reporter = { diagnostic in reported.withLock { $0.append(diagnostic) } }
    let count = withDependencies {
      $0 = values
    } operation: {
      values[TestOnlyKey.self]()
    }
    #expect(count == 0)
    let messages = reported.withLock { $0 }.map(\.message)
    #expect(
      messages == [
        "no live value for dependency 'TestOnlyKey': conform it to DependencyKey with a 'liveValue' in "
          + "the module that runs it; its test value is used"
      ])
  }
}

private enum TestOnlyKey: TestDependencyKey {
  static let testValue: @Sendable () -> Int = { 0 }
}
