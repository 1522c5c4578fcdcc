import Dripper
import DripperTesting
import XCTest

/// The harness under XCTest: its failures are XCTest failures, at the file and line of the call.
final class XCTestReportingTests: XCTestCase {
  private var failures: [(description: String, line: Int)] = []
  private var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    guard capturing else {
      return super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
    failures.append((description, lineNumber))
  }

  func testAPassingTestRecordsNothing() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    await station.pour(.increase) { $0.count = 1 }
    await station.finish()
  }

  func testAFailureIsAnXCTestFailureAtTheLineOfTheCall() async {
    let station = TestStation(initialState: Counter.State()) { Counter() }
    capturing = true
    let line = #line + 1
    await station.pour(.increase) { $0.count = 5 }
    capturing = false
    await station.finish()
    XCTAssertEqual(failures.count, 1)
    XCTAssertEqual(failures.first?.line, line)
    XCTAssertTrue(failures.first?.description.contains("is not what was expected") == true)
  }
}
