import SwiftSyntaxMacrosGenericTestSupport
import Testing

// The expansions `@DependencyClient` writes: TCA's macro of the same name, an initializer whose
// endpoints are unimplemented unless given, and labelled methods; and what it refuses.

@Suite struct DependencyClientMacroTests {
  @Test func endpointsOfEveryShape() {
    expect(
      """
      @DependencyClient struct Client: Sendable {
        var search: @Sendable (_ query: String, _ limit: Int) async throws -> [String]
        var fetch: @Sendable (Int) async throws -> String
        var save: @Sendable (_ value: Int) throws -> Void
        var finish: @Sendable () async -> Void
        var status: @Sendable () async -> Int = { 0 }
        var name: String
        var retries = 3
        static let shared = 1
        var computed: Int { 1 }
      }
      """,
      expands: #"""
        struct Client: Sendable {
          var search: @Sendable (_ query: String, _ limit: Int) async throws -> [String]
          var fetch: @Sendable (Int) async throws -> String
          var save: @Sendable (_ value: Int) throws -> Void
          var finish: @Sendable () async -> Void
          var status: @Sendable () async -> Int = { 0 }
          var name: String
          var retries = 3
          static let shared = 1
          var computed: Int { 1 }

          init(
            search: @escaping @Sendable (_ query: String, _ limit: Int) async throws -> [String] = unimplemented("Client.search"),
            fetch: @escaping @Sendable (Int) async throws -> String = unimplemented("Client.fetch"),
            save: @escaping @Sendable (_ value: Int) throws -> Void = unimplemented("Client.save", placeholder: ()),
            finish: @escaping @Sendable () async -> Void = unimplemented("Client.finish", placeholder: ()),
            status: @escaping @Sendable () async -> Int = unimplemented("Client.status", default: {
                0
              }),
            name: String
          ) {
            self.search = search
            self.fetch = fetch
            self.save = save
            self.finish = finish
            self.status = status
            self.name = name
          }

          func search(query: String, limit: Int) async throws -> [String] {
            try await search(query, limit)
          }

          func save(value: Int) throws -> Void {
            try save(value)
          }
        }
        """#, macro: "DependencyClient", conformances: [])
  }

  @Test func aPublicClientsInitializerAndMethodsArePublic() {
    expect(
      """
      @DependencyClient public struct Client: Sendable {
        public var login: @Sendable (_ email: String) async throws -> Bool
      }
      """,
      expands: #"""
        public struct Client: Sendable {
          public var login: @Sendable (_ email: String) async throws -> Bool

          public init(
            login: @escaping @Sendable (_ email: String) async throws -> Bool = unimplemented("Client.login")
          ) {
            self.login = login
          }

          public func login(email: String) async throws -> Bool {
            try await login(email)
          }
        }
        """#, macro: "DependencyClient", conformances: [])
  }

  @Test func anEndpointWithNothingToAnswerWithIsRefused() {
    expect(
      """
      @DependencyClient struct Client {
        var count: @Sendable () -> Int
      }
      """,
      expands: #"""
        struct Client {
          var count: @Sendable () -> Int
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message:
            "'@DependencyClient' endpoint 'count' returns Int without throwing: give it a default to answer with",
          line: 2, column: 7)
      ], macro: "DependencyClient", conformances: [])
  }

  @Test func anEnumIsRefused() {
    expect(
      """
      @DependencyClient enum Client {}
      """,
      expands: #"""
        enum Client {}
        """#,
      diagnostics: [
        DiagnosticSpec(message: "'@DependencyClient' applies to a struct of endpoints", line: 1, column: 1)
      ], macro: "DependencyClient", conformances: [])
  }
}
