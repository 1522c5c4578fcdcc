import Foundation
import Testing

@testable import Dripper

@Suite struct EntityStationTests {
  @Test func observersSeeEachReductionsChangesAndOnlyTheirEntity() async {
    let station = Station(initialState: Lists.State()) { Lists() }
    var changes = station.observe(\.todos.changes).buffering(.unbounded).makeAsyncIterator()
    var one = station.observe(\.todos[id: 1]).buffering(.unbounded).makeAsyncIterator()
    let initial = await changes.next()
    let absent = await one.next()
    #expect(initial?.isEmpty == true)
    #expect(absent == .some(nil))

    station.pour(.add(Todo(id: 1, listID: 10, title: "milk")))
    station.pour(.add(Todo(id: 2, listID: 20, title: "nails")))
    station.pour(.toggle(2))
    station.pour(.toggle(2))
    await station.pour(.toggle(1)).finish()

    var seen: [EntityChanges<Int>] = []
    for _ in 0..<5 { if let next = await changes.next() { seen.append(next) } }
    #expect(seen.map(\.inserted) == [[1], [2], [], [], []])
    #expect(seen.map(\.updated) == [[], [], [2], [2], [1]])
    // The observer of todo 1 was not woken by todo 2: its next values are todo 1's own.
    let added = await one.next()
    let toggled = await one.next()
    #expect(added??.isDone == false)
    #expect(toggled??.isDone == true)

    await station.pour(.deleteList(10)).finish()
    let deleted = await changes.next()
    let gone = await one.next()
    #expect(deleted?.removed == [1])
    #expect(gone == .some(nil))
    let state = await station.state
    #expect(state.lists.ids == [20])
    #expect(state.todos.ids(where: \.listID, equals: 10) == [])
  }

  @Test func updatingOneEntityCostsTheSameInAnyTableSize() async {
    await expectIndependentOfSize("an update in a table of n", n: 20_000) { size in
      var state = Lists.State()
      state.todos.insert(contentsOf: (0..<size).map { Todo(id: $0, listID: $0 % 100, title: "\($0)") })
      let lists = Lists()
      let start = threadCPUNanoseconds()
      for index in 0..<20_000 { _ = lists.reduce(into: &state, action: .toggle(index % 1_000)) }
      return threadCPUNanoseconds() - start
    }
  }
}
