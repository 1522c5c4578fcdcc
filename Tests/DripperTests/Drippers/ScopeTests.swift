import DripperTesting
import Testing

@testable import Dripper

@Suite struct ScopeTests {
  @Test func theChildRunsBeforeTheParentsOwnLogic() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    await station.pour(.child(.increase)).finish()
    #expect(await station.child.count == 1)
    #expect(await station.log == ["parent saw child at 1"])
  }

  @Test func childEffectsAreMappedBackToParentActions() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    let probe = Probe()
    let task = station.pour(.child(.increaseAfter(probe)))
    probe.release.open()
    await task.finish()
    #expect(await station.child.count == 1)
    #expect(await station.log == ["parent saw child at 1"])
  }

  @Test func onChangeRunsOnlyWhenTheValueChanges() async {
    let station = Station(initialState: Parent.State()) { Parent() }
    await station.pour(.child(.increase)).finish()
    await station.pour(.child(.cancelID)).finish()
    await station.pour(.child(.increase)).finish()
    #expect(await station.changeCount == 2)
  }

  @Test func fiveLevelsDeep() async {
    let station = Station(initialState: Nest5.State()) { Nest5() }
    await station.pour(.inner(.inner(.inner(.inner(.inner(.increase)))))).finish()
    #expect(await station.inner.inner.inner.inner.inner.count == 1)
  }
}
