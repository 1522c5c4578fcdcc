import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct StateStreamTests {
  @Test func statesStartWithTheCurrentStateThenFollowInOrder() async {
    let station = Station(initialState: Board.State()) { Board() }
    station.pour(.increase)
    var states = station.states.buffering(.unbounded).makeAsyncIterator()
    #expect(await states.next()?.count == 1)
    for _ in 0..<5 { station.pour(.increase) }
    for expected in 2...6 { #expect(await states.next()?.count == expected) }
  }

  @Test func aSlowConsumerSeesTheLatestStateNotABacklog() async {
    let station = Station(initialState: Board.State()) { Board() }
    var states = station.states.makeAsyncIterator()
    #expect(await states.next()?.count == 0)
    for _ in 0..<100 { station.pour(.increase) }
    await station.reducePending()
    #expect(await states.next()?.count == 100)
    station.pour(.increase)
    #expect(await states.next()?.count == 101)
  }

  @Test func anyNumberOfConsumersEachGetEveryChange() async {
    let station = Station(initialState: Board.State()) { Board() }
    var iterators = (0..<10).map { _ in station.observe(\.count).buffering(.unbounded).makeAsyncIterator() }
    for index in iterators.indices { #expect(await iterators[index].next() == 0) }
    station.pour(.increase)
    station.pour(.increase)
    for index in iterators.indices {
      #expect(await iterators[index].next() == 1)
      #expect(await iterators[index].next() == 2)
    }
  }

  @Test func endingIterationUnsubscribes() async {
    let station = Station(initialState: Board.State()) { Board() }
    let publishers = station.rootHandler!.publishers
    let started = Gate()
    let consumer = Task {
      for await _ in station.states { started.open() }
    }
    await started.wait()
    #expect(publishers.count == 1)
    consumer.cancel()
    await consumer.value
    #expect(publishers.count == 0)
    // A stream whose iterator is dropped unsubscribes too.
    do {
      var iterator = station.observe(\.count).makeAsyncIterator()
      _ = await iterator.next()
      #expect(publishers.count == 1)
    }
    station.pour(.increase)
    await station.reducePending()
    #expect(publishers.count == 0)
  }

  @Test func observeDeliversAValueOnlyWhenItChanges() async {
    let station = Station(initialState: Board.State()) { Board() }
    var counts = station.observe(\.count).buffering(.unbounded).makeAsyncIterator()
    var sizes = station.observe { $0.items.count }.buffering(.unbounded).makeAsyncIterator()
    #expect(await counts.next() == 0)
    #expect(await sizes.next() == 0)
    station.pour(.rename("x"))
    station.pour(.add(7))
    station.pour(.increase)
    #expect(await counts.next() == 1)
    #expect(await sizes.next() == 1)
  }

  @Test func observersOfTheSameKeyPathShareOneComputation() async {
    let station = Station(initialState: Board.State()) { Board() }
    var iterators = (0..<1_000).map { _ in station.observe(\.count).makeAsyncIterator() }
    for index in iterators.indices { _ = await iterators[index].next() }
    #expect(station.rootHandler!.publishers.count == 1)
  }

  @Test func changesPairEachStateWithTheOneSeenBefore() async {
    let station = Station(initialState: Board.State()) { Board() }
    var changes = station.changes.makeAsyncIterator()
    let first = await changes.next()
    #expect(first?.previous == nil)
    station.pour(.rename("a"))
    let second = await changes.next()!
    var seen: [String] = []
    second.ifChanged(\.count) { seen.append("count \($0)") }
    second.ifChanged(\.label) { seen.append("label \($0)") }
    second.ifChanged(\.count, \.label) { seen.append("either \($0) \($1)") }
    #expect(seen == ["label a", "either 0 a"])
  }

  @Test func aScopedStationsStatesFollowOnlyItsPart() async {
    let parent = Station(initialState: Parent.State()) { Parent() }
    let child = parent.scope(state: \.child, action: .child)
    var states = child.states.buffering(.unbounded).makeAsyncIterator()
    #expect(await states.next()?.count == 0)
    parent.pour(.addRow(1))
    parent.pour(.child(.increase))
    #expect(await states.next()?.count == 1)
  }
}
