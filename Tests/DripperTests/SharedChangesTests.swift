import Dripper
import Testing

/// Issue 60: a shared value's changes as a stream, TCA's `$value.publisher`.
@Suite struct SharedChangesTests {
  @Test func theCurrentValueThenEachChangeLatestFirst() async {
    let value = SharedValue(0)
    var changes = value.changes().makeAsyncIterator()
    #expect(await changes.next() == 0)
    value.set(1)
    #expect(await changes.next() == 1)
    value.set(1)  // no change: not told
    value.set(2)
    value.set(3)  // a reader behind skips to the newest
    #expect(await changes.next() == 3)
  }

  @Test func theStreamEndsWithTheValue() async {
    var value: SharedValue<Int>? = SharedValue(5)
    var changes = value!.changes().makeAsyncIterator()
    value = nil
    #expect(await changes.next() == 5)
    #expect(await changes.next() == nil)
  }

  /// A Station's write through its state's `Shared` reaches the stream.
  @Test func aStationsWritesAreTold() async {
    struct Counting: Dripper {
      struct State: Equatable, Sendable { @Shared var count: Int }
      enum Action: Sendable { case increase }
      var body: some DripperOf<Self> {
        Drip { state, _ in
          state.$count.withLock { $0 += 1 }
          return .none
        }
      }
    }
    let count = SharedValue(0)
    var changes = count.changes().makeAsyncIterator()
    #expect(await changes.next() == 0)
    let station = Station(initialState: Counting.State(count: Shared(count))) { Counting() }
    await station.pour(.increase).finish()
    #expect(await changes.next() == 1)
  }
}
