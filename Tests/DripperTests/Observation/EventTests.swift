import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct EventTests {
  @Test func eventsReachListenersInOrderAndAreNotReplayed() async {
    let station = Station(initialState: Board.State()) { Board() }
    station.pour(.toast("before anyone listened"))
    await station.reducePending()
    var toasts = station.events(of: Board.Toast.self).makeAsyncIterator()
    station.pour(.toast("saved"))
    station.pour(.toast("deleted"))
    #expect(await toasts.next()?.text == "saved")
    #expect(await toasts.next()?.text == "deleted")
    station.pour(.toast("again"))
    #expect(await toasts.next()?.text == "again")
  }
}
