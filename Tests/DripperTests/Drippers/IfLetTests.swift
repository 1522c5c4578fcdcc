import DripperTesting
import Testing

@testable import Dripper

@Suite struct IfLetTests {
  @Test func theChildRunsBeforeTheParent() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    await station.pour(.detail(.increase)).finish()
    #expect(await station.detail?.count == 1)
    #expect(await station.log == ["parent saw detail at 1"])
  }

  @Test func anActionForANilChildIsADiagnosticNotACrash() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.detail(.increase)).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        #"ignored .detail(.increase): its child state \State.detail is nil (an "#
          + "effect may have outlived the child, or the action was poured after it was dismissed)"
      ])
    #expect(await station.detail == nil)
  }

  @Test func nillingTheChildCancelsItsEffects() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    let probe = Probe()
    let task = station.pour(.detail(.increaseAfter(probe)))
    await probe.started.wait()
    await station.pour(.hideDetail).finish()
    await probe.cancelled.wait()
    probe.release.open()
    // Cancelled, its pour was dropped.
    await task.finish()
    #expect(await station.log == [])
  }

  /// A pour on its way to the actor as its child left is dropped without a word, as TCA drops what
  /// a cancelled effect sends: its task, cancelled with the child, could not have known. (A
  /// self-dismissing timer, TCA's RecordMeeting, failed its test about one run in thirty.)
  @Test func aPourInFlightAsItsChildLeavesIsDroppedQuietly() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Parent.State()) {
      Parent()
    } withDependencies: {
      sink.install(&$0)
    }
    station.pour(.showDetail)
    let probe = Probe()
    let task = station.pour(.detail(.increaseInFlight(probe)))
    await probe.started.wait()
    await station.pour(.hideDetail).finish()
    await task.finish()
    #expect(sink.all.map(\.kind) == [])
    #expect(await station.log == [])
    #expect(await station.detail == nil)
  }

  @Test func childIDsNeverClashWithTheParents() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    station.pour(.showDetail)
    let detailGate = Gate()
    let childGate = Gate()
    let detailTask = station.pour(.detail(.increaseAfterWithID(detailGate)))
    let childTask = station.pour(.child(.increaseAfterWithID(childGate)))
    // The scoped child shares the parent's namespace; the detail has its own.
    await station.pour(.child(.cancelID)).finish()
    detailGate.open()
    childGate.open()
    await detailTask.finish()
    await childTask.finish()
    #expect(await station.detail?.count == 1)
    #expect(await station.child.count == 0)
  }
}
