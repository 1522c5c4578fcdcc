import DripperTesting
import Testing

@testable import Dripper

@Suite struct ScopedStationTests {
  @Test func aScopedStationPoursIntoItsParentAndReadsItsPart() async {
    let parent = Station(initialState: Parent.State()) { Parent() }
    let child = parent.scope(state: \.child, action: .child)
    child.pour(.increase)
    await child.pour(.increase).finish()
    #expect(await child.count == 2)
    #expect(await child.state == Child.State(count: 2))
    #expect(await parent.log == ["parent saw child at 1", "parent saw child at 2"])
  }

  @Test func aScopedStationKeepsItsParentAlive() async {
    var parent: StationOf<Parent>? = Station(initialState: Parent.State()) { Parent() }
    let child = parent!.scope(state: \.child, action: .child)
    parent = nil
    await child.pour(.increase).finish()
    #expect(await child.count == 1)
  }

  @Test func scopesCompose() async {
    let root = Station(initialState: Nest5.State()) { Nest5() }
    let deep = root.scope(state: \.inner, action: .inner).scope(state: \.inner, action: .inner)
    await deep.pour(.inner(.inner(.inner(.increase)))).finish()
    #expect(await root.inner.inner.inner.inner.inner.count == 1)
  }
}
