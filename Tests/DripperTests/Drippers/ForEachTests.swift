import DripperTesting
import Testing

@testable import Dripper

@Suite struct ForEachTests {
  @Test func anElementActionRunsTheElementThenTheParent() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    await station.pour(.rows(.element(id: 2, action: .increase))).finish()
    #expect(await station.rows.map(\.count) == [0, 1])
    #expect(await station.log == ["parent saw row 2 at 1"])
  }

  @Test func anActionForAMissingIDIsADiagnostic() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.rows(.element(id: 9, action: .increase))).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        "ignored .rows(.element(id: 9, action: .increase)): "
          + #"no element of \State.rows has the id 9 (an "#
          + "effect may have outlived its element, or the action was poured after it was removed)"
      ])
  }

  /// A row's pour on its way to the actor as the row is removed is dropped without a word, as for
  /// a presentation (`IfLetTests.aPourInFlightAsItsChildLeavesIsDroppedQuietly`); the row left
  /// keeps its count.
  @Test func aRowsPourInFlightAsItIsRemovedIsDroppedQuietly() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    let probe = Probe()
    let task = station.pour(.rows(.element(id: 1, action: .increaseInFlight(probe))))
    await probe.started.wait()
    await station.pour(.removeRow(1)).finish()
    await task.finish()
    #expect(sink.all.map(\.kind) == [])
    #expect(await station.rows.map(\.id) == [2])
    #expect(await station.rows.map(\.count) == [0])
    #expect(await station.log == [])
  }

  @Test func removingAnElementCancelsItsEffectsAndOnlyItsEffects() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    let first = Probe()
    let second = Probe()
    let firstTask = station.pour(.rows(.element(id: 1, action: .increaseAfter(first))))
    let secondTask = station.pour(.rows(.element(id: 2, action: .increaseAfter(second))))
    await first.started.wait()
    await second.started.wait()
    await station.pour(.removeRow(1)).finish()
    await first.cancelled.wait()
    first.release.open()
    await firstTask.finish()
    #expect(!second.cancelled.isOpen)
    second.release.open()
    await secondTask.finish()
    #expect(await station.rows.map(\.count) == [1])
  }

  @Test func elementIDsAreScopedToTheirElement() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.addRow(1))
    station.pour(.addRow(2))
    let first = Gate()
    let second = Gate()
    let firstTask = station.pour(.rows(.element(id: 1, action: .increaseAfterWithID(first))))
    let secondTask = station.pour(.rows(.element(id: 2, action: .increaseAfterWithID(second))))
    await station.pour(.rows(.element(id: 1, action: .cancelID))).finish()
    first.open()
    second.open()
    await firstTask.finish()
    await secondTask.finish()
    #expect(await station.rows.map(\.count) == [0, 1])
  }
}
