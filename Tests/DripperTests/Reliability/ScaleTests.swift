import Synchronization
import Testing

@testable import Dripper

/// A list of rows with effects, and actions that touch many rows at once.
struct Rows: Dripper {
  struct Row: Equatable, Sendable, Identifiable {
    let id: Int
    var items: [Int] = []
  }

  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Row> = []
  }

  enum Action: Sendable {
    case append(Int)
    case appendMany(Int)
    case removeAll
    case replace(Int)
    case addItem(row: Int, item: Int)
    case rows(IdentifiedAction<Int, RowAction>)
  }

  enum RowAction: Sendable { case tap }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .append(let id):
        state.rows.append(Row(id: id))
      case .appendMany(let count):
        state.rows.append(contentsOf: (0..<count).map { Row(id: $0) })
      case .removeAll:
        state.rows.removeAll()
      case .replace(let count):
        state.rows = IdentifiedArray((0..<count).map { Row(id: -1 - $0) })
      case .addItem(let row, let item):
        state.rows[id: row]?.items.append(item)
      case .rows:
        break
      }
      return .none
    }
    .forEach(\.rows, action: .rows) {
      Drip<Row, RowAction> { _, _ in .none }
    }
  }
}

extension CasePath<Rows.Action, IdentifiedAction<Int, Rows.RowAction>> {
  static var rows: Self { Self(Rows.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}

/// Effects that wait until cancelled, on a stream each: what piles up in a registry.
private func waitingEffect() -> Effect<Runner.Action> {
  .run { _ in
    let (stream, _) = AsyncStream.makeStream(of: Never.self)
    for await _ in stream {}
  }
}

/// Costs that must grow linearly with what an action touches (issue 14): each of these was
/// quadratic, and each check fails if a change brings it back.
/// A feature holding a shared counter.
struct SharedHolder: Dripper {
  struct State: Sendable { @Shared var count: Int }
  enum Action: Sendable { case bump }
  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.$count.withLock { $0 += 1 }
      return .none
    }
  }
}

@Suite(.serialized) struct ScaleTests {
  /// Issue 42: removing n memberships of a group one by one took 25 s at 20,000 (each removal
  /// searched the list); the order of dispatch stays the order of adding.
  @Test func removingGroupMembershipsOneByOne() async {
    let stations = (0..<4).map { _ in
      Station(initialState: SharedHolder.State(count: Shared(value: 0))) { SharedHolder() }
    }
    await expectLinearSynchronous("station group, n memberships removed one by one", n: 20_000) { n in
      let group = StationGroup<Int>()
      let memberships = (0..<n).map { group.add(stations[$0 % 4]) { _ in nil } }
      for membership in memberships.reversed() { group.remove(membership) }
      #expect(group.count == 0)
    }
  }

  /// Issue 42: a released Station lets go of its shared values as it is released; the first write
  /// after 160,000 were released took 8 s when they were only removed at the next write.
  @Test func aWriteAfterManyHoldersWereReleasedDoesNotPayForThem() async {
    await expectIndependentOfSize("shared value, 100 writes after n holders were released", n: 2_000) { n in
      let source = SharedValue(0)
      var stations: [StationOf<SharedHolder>]? = (0..<n).map { _ in
        Station(initialState: SharedHolder.State(count: Shared(source))) { SharedHolder() }
      }
      #expect(source.subscriberCount == n)
      stations = nil
      #expect(stations == nil && source.subscriberCount == 0)
      let start = threadCPUNanoseconds()
      for value in 1...100 { source.set(value) }
      return threadCPUNanoseconds() - start
    }
  }

  struct ID: Hashable, Sendable {}

  /// A navigation stack of counters.
  struct Frames: Dripper {
    struct State: Sendable { var path: StackState<Int> }
    enum Action: Sendable { case path(StackAction<Int, Bump>) }
    enum Bump: Sendable { case bump }

    var body: some DripperOf<Self> {
      EmptyDripper()
        .forEach(\.path, action: CasePath(Action.path) { if case .path(let a) = $0 { a } else { nil } }) {
          Drip<Int, Bump> { count, _ in
            count += 1
            return .none
          }
        }
    }
  }

  /// Before, an element was found by searching the stack from the top.
  @Test func anActionForTheBottomOfAStackCostsTheSameAtAnyDepth() async {
    await expectIndependentOfSize("stack, the bottom element's action", n: 2_000) { n in
      var state = Frames.State(path: StackState(Array(repeating: 0, count: n)))
      let frames = Frames()
      let start = threadCPUNanoseconds()
      for _ in 0..<20_000 { _ = frames.reduce(into: &state, action: .path(.element(id: 0, action: .bump))) }
      return threadCPUNanoseconds() - start
    }
  }

  /// The stack dripper learns which elements left from a log of the ids popped, not by comparing
  /// the ids before and after: a pop costs what the elements popped do, at any depth.
  @Test func poppingTheTopOfAStackCostsTheSameAtAnyDepth() async {
    await expectIndependentOfSize("stack, pop and push back the top", n: 2_000) { n in
      var state = Frames.State(path: StackState(Array(repeating: 0, count: n)))
      let frames = Frames()
      let top = StackElementID(rawValue: n - 1)
      let start = threadCPUNanoseconds()
      for _ in 0..<5_000 {
        _ = frames.reduce(into: &state, action: .path(.popFrom(id: top)))
        _ = frames.reduce(into: &state, action: .path(.push(id: top, state: 0)))
      }
      #expect(state.path.count == n)
      return threadCPUNanoseconds() - start
    }
  }

  @Test func mergingAndConcatenatingASequenceOfEffects() async {
    await expectLinearSynchronous("merge", n: 10_000) { n in
      _ = Effect<Runner.Action>.merge((0..<n).map { .send(.record("\($0)")) })
    }
    await expectLinearSynchronous("concatenate", n: 10_000) { n in
      _ = Effect<Runner.Action>.concatenate((0..<n).map { .send(.record("\($0)")) })
    }
  }

  @Test func endingEffectsFromTheLastStartedAfterMostHaveEnded() async {
    // Most slots end oldest first, which leaves the table under a quarter full and its last
    // entry in use; the rest then end newest first, each freeing the last entry in use.
    await expectLinearSynchronous("slot table, tail freed one entry at a time", n: 20_000) { n in
      var table = SlotTable<Int>()
      let ids = (0..<n).map { table.insert($0) }
      for id in ids.prefix(n * 4 / 5) { _ = table.remove(id) }
      for id in ids.suffix(n / 5).reversed() { _ = table.remove(id) }
      #expect(table.count == 0)
    }
  }

  @Test func removingManyRowsInOneAction() async {
    await expectLinear("forEach, remove all", n: 5_000) { n in
      let station = Station(initialState: Rows.State()) { Rows() }
      await station.pour(.appendMany(n)).finish()
      await station.pour(.removeAll).finish()
    }
  }

  @Test func replacingAListWholesale() async {
    await expectLinear("forEach, replace the list", n: 5_000) { n in
      let station = Station(initialState: Rows.State()) { Rows() }
      await station.pour(.appendMany(n)).finish()
      await station.pour(.replace(n)).finish()
    }
  }

  @Test func appendingRowsOneActionEach() async {
    // Sizes that span several scheduler slices each: at 2,000 the smallest fitted in one while the
    // largest waited two slices for the drain's thread beside two busy loops (2.6/13.3/26.7 ms,
    // 10x), a wait in steps of the scheduler, not of the work.
    await expectLinear("forEach, one append per action", n: 20_000) { n in
      let station = Station(initialState: Rows.State()) { Rows() }
      for id in 0..<n { station.pour(.append(id)) }
      await station.reducePending()
    }
  }

  @Test func changingARowThroughItsIDDoesNotCopyIt() async {
    // At most 10,000 items (80 KB): past glibc's 128 KB threshold, each growth of the array is a
    // fresh mapping whose page faults, on a loaded machine, made 20,000 cost 9x 5,000 in one CI
    // run. A copy per append would still be 2,500x.
    await expectLinearSynchronous("rows[id:]?.items.append", n: 2_500) { n in
      var state = Rows.State()
      state.rows.append(Rows.Row(id: 0))
      for item in 0..<n { state.rows[id: 0]?.items.append(item) }
    }
  }

  @Test func effectsSharingOneKey() async {
    await expectLinear("effects under one id, started then cancelled", n: 5_000) { n in
      let station = Station(initialState: Runner.State()) { Runner() }
      for _ in 0..<n { station.pour(.run(waitingEffect().cancellable(id: ID()))) }
      await station.pour(.run(.cancel(id: ID()))).finish()
      await station.waitForEffectsToEnd()
    }
  }

  @Test func effectsQueuedUnderOneKey() async {
    await expectLinear("enqueue", n: 2_000) { n in
      let station = Station(initialState: Runner.State()) { Runner() }
      let first = Gate()
      // The first effect holds the id while the others queue behind it.
      station.pour(.run(.run { _ in await first.wait() }.cancellable(id: ID(), policy: .enqueue)))
      for index in 0..<n {
        station.pour(.run(.send(.record("\(index)")).cancellable(id: ID(), policy: .enqueue)))
      }
      await station.reducePending()
      first.open()
      await station.waitForEffectsToEnd()
    }
  }

  @Test func cancellingPoursOneByOne() async {
    await expectLinear("PourTask.cancel", n: 2_000) { n in
      let station = Station(initialState: Runner.State()) { Runner() }
      let tasks = (0..<n).map { _ in station.pour(.run(waitingEffect())) }
      await station.reducePending()
      for task in tasks { task.cancel() }
      await station.waitForEffectsToEnd()
    }
  }

  @Test func subscribingAndCancellingObservers() async {
    await expectLinear("observers of one key path", n: 2_000) { n in
      let station = Station(initialState: Runner.State()) { Runner() }
      var iterators = (0..<n).map { _ in station.observe(\.log).makeAsyncIterator() }
      for index in iterators.indices { _ = await iterators[index].next() }
      iterators.removeAll()
      await station.reducePending()
    }
    await expectLinear("observers of closures", n: 1_000) { n in
      let station = Station(initialState: Runner.State()) { Runner() }
      var iterators = (0..<n).map { _ in station.observe { $0.log.count }.makeAsyncIterator() }
      for index in iterators.indices { _ = await iterators[index].next() }
      iterators.removeAll()
      await station.reducePending()
    }
  }

  @Test func advancingATestClockOverManySleepers() async {
    await expectLinear("TestClock, wake every sleeper", n: 1_000) { n in
      let clock = TestClock()
      let sleepers = (0..<n).map { index in
        Task { try? await clock.sleep(for: .milliseconds(index + 1)) }
      }
      while clock.sleeperCount < n { await Task.yield() }
      await clock.advance(by: .seconds(3_600))
      for sleeper in sleepers { await sleeper.value }
    }
  }

  @Test func wakingAFewSleepersBesideManyThatAreNotDue() async {
    await expectIndependentOfSize("TestClock, waking 200 due among n not due", n: 4_000) { n in
      let clock = TestClock()
      let waiting = (0..<n).map { _ in Task { try? await clock.sleep(for: .seconds(100)) } }
      let due = (0..<200).map { _ in Task { try? await clock.sleep(for: .seconds(1)) } }
      while clock.sleeperCount < n + 200 { await Task.yield() }
      let start = monotonicNanoseconds()
      await clock.advance(by: .seconds(1))
      for task in due { await task.value }
      let elapsed = monotonicNanoseconds() - start
      for task in waiting { task.cancel() }
      for task in waiting { await task.value }
      return elapsed
    }
  }
}
