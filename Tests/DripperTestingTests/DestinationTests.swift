import Dripper
import DripperTesting
import Testing

@Suite struct DestinationTests {
  @Test func eachDestinationIsPresentedAndDismissesItself() async {
    let clock = TestClock()
    let station = TestStation(initialState: Screen.State()) {
      Screen()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.deleteTapped) { $0.destination = .confirm(Confirm.State(message: "Delete?")) }
    await station.pour(.destination(.presented(.confirm(.okTapped))))
    await station.receive(.destination(.dismiss)) { $0.destination = nil }

    await station.pour(.editTapped) { $0.destination = .sheet(SheetEditor.State()) }
    await station.pour(.destination(.presented(.sheet(.startTicking))))
    await station.pour(.destination(.presented(.sheet(.closeTapped))))
    await station.receive(.destination(.dismiss)) { $0.destination = nil }
    // The sheet's tick was cancelled with it.
    await clock.advance(by: .seconds(1))
    await station.finish()
  }
}
