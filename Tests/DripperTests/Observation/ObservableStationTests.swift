import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct ObservableStationTests {
  @MainActor
  @Test func viewsAreToldOnlyOfThePartsTheyReadWhenTheyChange() async {
    let model = ObservableStation(initialState: Board.State()) { Board() }
    let countChanged = Gate()
    withObservationTracking {
      _ = model.count
    } onChange: {
      countChanged.open()
    }
    let labelChanged = Lock(false)
    withObservationTracking {
      _ = model.label
    } onChange: {
      labelChanged.withLock { $0 = true }
    }
    await model.pour(.increase).finish()
    await countChanged.wait()
    #expect(model.count == 1)
    #expect(!labelChanged.withLock { $0 })
    // Reading the whole state depends on every change.
    let stateChanged = Gate()
    withObservationTracking {
      _ = model.state
    } onChange: {
      stateChanged.open()
    }
    await model.pour(.rename("x")).finish()
    await stateChanged.wait()
    #expect(model.label == "x")
  }
}
