import Foundation
import Testing

@testable import Dripper

/// What a traced request carries: a task-local value its caller binds.
private enum Trace {
  @TaskLocal static var id: String?
}

/// A feature whose effect reports the trace it runs under.
private struct Traced: Dripper {
  struct State: Equatable, Sendable, Codable { var count = 0 }
  enum Action: Equatable, Sendable, Codable {
    case work
    case sawTrace(String)
  }
  let seen: LockIsolated<[String]>

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .work:
        state.count += 1
        return .run { [seen] _ in seen.withValue { $0.append(Trace.id ?? "none") } }
      case .sawTrace:
        return .none
      }
    }
  }
}

@Suite struct RequestScopeTests {
  /// A key's effects are tasks of its Station: without a scope they do not see the caller's
  /// task-local values; with one, the effects of that request's reduction do, and a retry of the
  /// id starts none.
  @Test(arguments: [false, true])
  func aRequestsEffectsRunInsideItsScope(inFolder: Bool) async throws {
    let folder = NSTemporaryDirectory() + "scope-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let seen = LockIsolated<[String]>([])
    let host = try StationHost<String, Traced>(
      storage: inFolder ? .folder(folder, codec: .json) : .inMemory
    ) { _ in
      Traced.State()
    } dripper: { _ in
      Traced(seen: seen)
    }
    try await Trace.$id.withValue("request-1") {
      let trace = Trace.id
      let scope = RequestScope { body in try await Trace.$id.withValue(trace) { try await body() } }
      _ = try await host.pour(.work, to: "a", id: "1", effectsIn: scope)
      _ = try await host.pour(.work, to: "a", id: "1", effectsIn: scope)
      _ = try await host.pour(.work, to: "a", id: "2")
    }
    await host.finish("a")
    #expect(seen.value.sorted() == ["none", "request-1"])
    await host.close()
  }
}
