import DripperTesting
import Synchronization
import Testing

/// A failure the harness reported while a test expected it.
struct ExpectedFailure {
  /// The failure's message, as `Issue.comments` gives a known issue's.
  let comments: [Comment]
}

/// Runs `body`, which must make the harness report at least one failure, each of which `matching`
/// accepts: `withKnownIssue` for the harness's failure paths, without printing them. A green run of
/// `swift test` then shows no failure text, which a newcomer would read as a failure.
///
/// A failure `matching` refuses is recorded as a real issue, and so is a body that reports none.
func withExpectedFailure(
  _ body: () async throws -> Void,
  matching: (ExpectedFailure) -> Bool = { _ in true },
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) async {
  let messages = Lock<[String]>([])
  let sink: @Sendable (String) -> Void = { message in messages.withLock { $0.append(message) } }
  await FailureReporter.$capture.withValue(sink) {
    do {
      try await body()
    } catch {
      Issue.record(error, sourceLocation: sourceLocation)
    }
  }
  check(messages.withLock { $0 }, matching: matching, sourceLocation: sourceLocation)
}

/// ``withExpectedFailure(_:matching:sourceLocation:)`` for a synchronous body.
func withExpectedFailure(
  _ body: () throws -> Void,
  matching: (ExpectedFailure) -> Bool = { _ in true },
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let messages = Lock<[String]>([])
  let sink: @Sendable (String) -> Void = { message in messages.withLock { $0.append(message) } }
  FailureReporter.$capture.withValue(sink) {
    do {
      try body()
    } catch {
      Issue.record(error, sourceLocation: sourceLocation)
    }
  }
  check(messages.withLock { $0 }, matching: matching, sourceLocation: sourceLocation)
}

/// Runs `body` and returns what `showSkippedAssertions` showed in it, instead of printing it.
func skippedAssertionsShown(_ body: () async -> Void) async -> [String] {
  let shown = Lock<[String]>([])
  let sink: @Sendable (String) -> Void = { text in shown.withLock { $0.append(text) } }
  await FailureReporter.$shown.withValue(sink) { await body() }
  return shown.withLock { $0 }
}

/// Records an issue when the harness reported nothing, and for each failure `matching` refuses.
private func check(
  _ reported: [String], matching: (ExpectedFailure) -> Bool, sourceLocation: Testing.SourceLocation
) {
  if reported.isEmpty {
    Issue.record("Expected the harness to report a failure; it reported none", sourceLocation: sourceLocation)
  }
  for message in reported where !matching(ExpectedFailure(comments: [Comment(rawValue: message)])) {
    Issue.record("An unexpected failure: \(message)", sourceLocation: sourceLocation)
  }
}
