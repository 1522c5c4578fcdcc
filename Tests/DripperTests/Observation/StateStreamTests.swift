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
    var firstSeen: [String] = []
    first?.ifChanged(\.count) { firstSeen.append("count \($0)") }
    #expect(firstSeen == ["count 0"])  // the first change is the whole current state
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

  /// Issue 43: a reader takes the state when it asks, so the states it skips cost nothing, and the
  /// values come in order, the last one seen before the Station goes, then the end.
  @Test func aReaderTakesTheLatestStateWhenItAsksThenTheLastOneThenTheEnd() async {
    var station: StationOf<Board>? = Station(initialState: Board.State()) { Board() }
    var states = station!.states.makeAsyncIterator()
    #expect(await states.next()?.count == 0)
    var last = 0
    for round in 1...50 {
      for _ in 0..<100 { station!.pour(.increase) }
      guard let count = await states.next()?.count else {
        Issue.record("the stream ended in round \(round)")
        return
      }
      #expect(count > last)
      last = count
    }
    for _ in 0..<7 { station!.pour(.increase) }
    await station!.reducePending()
    station = nil
    // The state the reader had not seen yet, then the end.
    #expect(await states.next()?.count == 5_007)
    #expect(await states.next() == nil)
  }

  /// A task waiting for the next state ends its wait when cancelled.
  @Test func aReaderWaitingIsCancelled() async {
    let station = Station(initialState: Board.State()) { Board() }
    let started = Gate()
    let reader = Task {
      var seen = 0
      for await _ in station.states {
        seen += 1
        started.open()
      }
      return seen
    }
    await started.wait()
    reader.cancel()
    #expect(await reader.value == 1)
    #expect(station.rootHandler!.publishers.count == 0)
  }

  /// `reduced` is told of each action and the new state, in order, with no state before kept.
  @Test func aReducedObserverSeesEachNewState() async {
    let seen = Lock<[Int]>([])
    let station = Station(
      initialState: Board.State(),
      observers: [DripperObserver(reduced: { _, state in seen.withLock { $0.append(state.count) } })]
    ) { Board() }
    for _ in 0..<5 { station.pour(.increase) }
    await station.reducePending()
    #expect(seen.withLock { $0 } == [1, 2, 3, 4, 5])
  }
}
