import Dripper
import DripperTesting
import Foundation
import Testing

/// Every effect a test reports as still running names the line where the user wrote it.
@Suite struct EffectOriginTests {
  /// The line where `call` is written in ``Parallel``, in `EffectSettlingTests.swift` beside this
  /// file.
  private func line(of call: String, filePath: String = #filePath) -> Int {
    let directory = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
    let fixture = (directory + ["EffectSettlingTests.swift"]).joined(separator: "/")
    let source = (try? String(contentsOfFile: fixture, encoding: .utf8)) ?? ""
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    return (lines.firstIndex { $0.contains(call) } ?? -1) + 1
  }

  private func finishReports(
    _ action: Parallel.Action, line: Int, waiting: String = ""
  ) async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Parallel()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(action)
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix(
        "1 effect is still running:\n  started at DripperTestingTests/EffectSettlingTests.swift:\(line)\(waiting)\n"
      )
        == true
    }
  }

  @Test func aPendingDebounceNamesItsLine() async {
    await finishReports(.debounced, line: line(of: ".debounce(id: \"search\""))
  }

  @Test func anEffectWaitingItsTurnNamesItsLine() async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Parallel()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.enqueued)
    await station.pour(.enqueued)
    let line = line(of: "}.cancellable(")
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix(
        "2 effects are still running:\n  started at DripperTestingTests/EffectSettlingTests.swift:\(line)\n"
          + "  started at DripperTestingTests/EffectSettlingTests.swift:\(line) (waiting its turn or its throttle window)\n"
      ) == true
    }
  }

  @Test func aHeldThrottledEffectNamesItsLine() async {
    let clock = TestClock()
    let station = TestStation(initialState: Parallel.State()) {
      Parallel()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.throttled)
    await station.receive(.tick(0))
    await station.pour(.throttled)
    let line = line(of: ".throttle(id: \"scroll\"")
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix(
        "1 effect is still running:\n  started at DripperTestingTests/EffectSettlingTests.swift:\(line)"
          + " (waiting its turn or its throttle window)\n") == true
    }
  }
}
