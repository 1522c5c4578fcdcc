import Dripper
import DripperTesting
import Foundation
import Testing

@Suite struct SharedPersistenceTests {
  private func temporaryPath() -> String {
    NSTemporaryDirectory() + "dripper-shared-\(UUID().uuidString).json"
  }

  private func file(_ path: String) -> SharedPersistence<ListSettings> {
    .file(
      at: path, encode: { Array(try JSONEncoder().encode($0)) },
      decode: { try JSONDecoder().decode(ListSettings.self, from: Data($0)) })
  }

  @Test func aFileKeepsTheValueAcrossRuns() async throws {
    let path = temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = SharedValue(ListSettings(), persistence: file(path))
    #expect(first.loadFailure == nil)
    first.set(ListSettings(sort: "title"))
    let error = await first.flush()
    #expect(error == nil)
    let second = SharedValue(ListSettings(), persistence: file(path))
    #expect(second.value == ListSettings(sort: "title"))
    // Written through a temporary file, which is gone.
    let directory = (path as NSString).deletingLastPathComponent
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".tmp") }
    #expect(leftovers.isEmpty)
  }

  @Test func aCorruptFileIsNotLoadedOverTheInitialValue() async throws {
    let path = temporaryPath()
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: path))
    let shared = SharedValue(ListSettings(sort: "initial"), persistence: file(path))
    #expect(shared.value == ListSettings(sort: "initial"))
    #expect(shared.loadFailure?.contains("could not be decoded") == true)
    // The file stays as it was until the value changes.
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "{ not json")
  }

  /// Before, a write renamed the new file over the link, and the file it pointed to kept the
  /// old value.
  @Test func aWriteThroughASymbolicLinkUpdatesItsTarget() async throws {
    let target = temporaryPath()
    let link = temporaryPath()
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: link)
    }
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let shared = SharedValue(ListSettings(), persistence: file(link))
    shared.set(ListSettings(sort: "title"))
    let error = await shared.flush()
    #expect(error == nil)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(SharedValue(ListSettings(), persistence: file(target)).value == ListSettings(sort: "title"))
  }

  @Test func aFileThatCannotBeWrittenIsReportedByFlush() async {
    let shared = SharedValue(ListSettings(), persistence: file("/nonexistent-dir/settings.json"))
    shared.set(ListSettings(sort: "title"))
    let error = await shared.flush()
    #expect(error?.message.contains("cannot write /nonexistent-dir/settings.json") == true)
  }
}
