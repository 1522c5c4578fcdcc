import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

@Suite struct TodosSettingsTests {
  @Test func theFilterIsSharedBetweenStationsShowingTheList() async {
    let settings = SharedValue(Todos.Filter.all)
    let first = Station(initialState: Todos.State(filter: Shared(settings))) { Todos() }
    let second = Station(initialState: Todos.State(filter: Shared(settings))) { Todos() }
    await first.pour(.setFilter(.done)).finish()
    #expect(await second.state.filter == .done)
    #expect(settings.value == .done)
  }

  @Test func theFilterIsKeptNextToTheListForTheNextSession() async throws {
    let list = NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString).json"
    let settingsFile = String(list.dropLast(5)) + ".settings.json"
    defer { try? FileManager.default.removeItem(atPath: settingsFile) }
    func session(_ commands: [String]) async -> String {
      let output = Lock("")
      let console = Console(
        prompt: "todos> ", isInteractive: false, output: { text in output.withLock { $0 += text } },
        error: { _ in })
      let (lines, continuation) = AsyncStream.makeStream(of: String.self)
      for command in commands { continuation.yield(command) }
      continuation.finish()
      await Session(console: console, defaultPath: .success(list)) { $0.clock = ImmediateClock() }.run(lines)
      return output.withLock { $0 }
    }
    _ = await session(["filter done"])
    let next = await session(["filter"])
    #expect(next.hasSuffix("showing done todos\n"))
  }
}
