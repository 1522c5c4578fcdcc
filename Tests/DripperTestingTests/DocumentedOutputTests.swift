import Dripper
import DripperTesting
import Foundation
import Testing

/// Output the documentation shows, compared with what the code prints: a block under
/// `<!-- output: NAME -->` in README.md or a DocC article, and the example in `logChanges`'
/// doc comment, for the README's `Counter` (in TestStationTests). The sample sessions are checked
/// by `.ci/doc-sessions.py`.
@Suite struct DocumentedOutputTests {
  @Test func logChangesPrintsWhatTheDocsShow() async {
    let printed = Lock<[String]>([])
    let station = Station(initialState: Counter.State()) {
      Counter().logChanges(to: LogSink { entry in printed.withLock { $0.append(entry) } })
    }
    await station.pour(.increase).finish()
    let lines = printed.withLock { $0 }.joined(separator: "\n").split(separator: "\n").map(String.init)

    #expect(
      Docs.outputBlock("logChanges", in: "Sources/Dripper/Documentation.docc/ObservingAStation.md") == lines)
    let source = Docs.text(of: "Sources/Dripper/Drippers/LogChangesModifier.swift")
    let commented = source.split(separator: "\n").compactMap { line in
      line.hasPrefix("  /// // ") ? String(line.dropFirst("  /// // ".count)) : nil
    }
    #expect(commented == lines)
  }

  @Test func aFailedAssertionReadsAsTheDocsShow() async {
    let messages = Lock<[String]>([])
    let station = TestStation(
      initialState: Counter.State(), dripper: { Counter() },
      reporter: FailureReporter { message, _, _, _, _ in messages.withLock { $0.append(message) } })
    await station.pour(.increase) { $0.count = 2 }
    let reported = messages.withLock { $0 }
    #expect(reported.count == 1)
    let lines = reported.first.map { $0.split(separator: "\n").map(String.init) } ?? []

    #expect(Docs.outputBlock("a failed assertion", in: "README.md") == lines)
    #expect(
      Docs.outputBlock(
        "a failed assertion", in: "Sources/DripperTesting/Documentation.docc/DripperTesting.md")
        == lines)
  }
}

/// Reads the repository's documents.
private enum Docs {
  /// The repository's root, three folders above this file.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(of path: String) -> String {
    (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
  }

  /// The lines of the fenced block right under `<!-- output: NAME -->`, or nil with no such marker.
  static func outputBlock(_ name: String, in path: String) -> [String]? {
    let lines = text(of: path).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let marker = lines.firstIndex(of: "<!-- output: \(name) -->"),
      marker + 1 < lines.count, lines[marker + 1].hasPrefix("```"),
      let end = lines[(marker + 2)...].firstIndex(where: { $0.hasPrefix("```") })
    else { return nil }
    return Array(lines[(marker + 2)..<end])
  }
}
