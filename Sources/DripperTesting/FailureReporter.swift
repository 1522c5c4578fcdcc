import Testing
import XCTest

/// Where a test failure is reported, with the place in the test's source that caused it.
struct SourceLocation: Sendable {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt
}

/// Reports failures through whichever test framework runs the test.
///
/// Under Swift Testing a failure is an `Issue` at the test's source location; under XCTest it is an
/// `XCTFail` at the file and line. Tests of the harness itself pass a reporter of their own.
public struct FailureReporter: Sendable {
  let report:
    @Sendable (
      _ message: String, _ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt
    )
      -> Void

  /// A reporter that hands each failure to `report`, for tests of the harness.
  public init(
    _ report:
      @escaping @Sendable (
        _ message: String, _ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt
      ) -> Void
  ) {
    self.report = report
  }

  /// Swift Testing's `Issue.record` when a Swift Testing test is running, XCTest's `XCTFail`
  /// otherwise.
  public static var automatic: FailureReporter {
    FailureReporter { message, fileID, filePath, line, column in
      if let capture = FailureReporter.capture {
        capture(message)
      } else if Test.current != nil {
        Issue.record(
          Comment(rawValue: message),
          sourceLocation: Testing.SourceLocation(
            fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
      } else {
        XCTFail(message, file: filePath, line: line)
      }
    }
  }

  /// Where the failures of the harness's own tests go instead, while one expects them: a test of a
  /// failure path checks the message without recording it, so that a green run prints no failure.
  @TaskLocal package static var capture: (@Sendable (String) -> Void)?

  /// Where what `showSkippedAssertions` shows goes instead of standard output: a test that checks
  /// what is shown, and keeps a green run quiet.
  @TaskLocal package static var shown: (@Sendable (String) -> Void)?

  /// Shows `text`, a skipped assertion: on standard output, or to ``shown``.
  static func show(_ text: String) {
    if let shown { shown(text) } else { print(text) }
  }

  func fail(_ message: String, at location: SourceLocation) {
    report(message, location.fileID, location.filePath, location.line, location.column)
  }
}
