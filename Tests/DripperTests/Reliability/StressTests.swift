import Synchronization
import Testing

@testable import Dripper

/// Counts pours per producer and notices any out of order.
struct Tally: Dripper {
  struct State: Equatable, Sendable {
    var next: [Int]
    var outOfOrder = 0
    var total = 0
    var echoes = 0
  }

  enum Action: Sendable {
    case pour(producer: Int, index: Int)
    case echoes(count: Int, every: Duration)
    case echo
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .pour(let producer, let index):
        if index != state.next[producer] { state.outOfOrder += 1 }
        state.next[producer] = index + 1
        state.total += 1
        return .none
      case .echoes(let count, let interval):
        return .run { pour in
          for _ in 0..<count {
            try await Task.sleep(for: interval)
            await pour(.echo)
          }
        }
      case .echo:
        state.echoes += 1
        return .none
      }
    }
  }
}

@Suite(.serialized) struct StressTests {
  @Test func sixtyFourProducersWithEffectsAndObserversLoseNothing() async {
    let producers = 64
    let perProducer = scaled(20_000)
    let station = Station(initialState: Tally.State(next: Array(repeating: 0, count: producers))) { Tally() }
    // 16 effects a second pour back while the producers run.
    let echoes = station.pour(.echoes(count: 16, every: .milliseconds(62)))
    // 8 observers read the states; each checks that the totals it sees never go back.
    let seen = Recorder<Int>()
    let regressions = Recorder<Int>()
    let observers = (0..<8).map { observer in
      Task {
        var last = -1
        for await state in station.states {
          if state.total < last { regressions.append(observer) }
          last = state.total
          seen.append(observer)
          if state.total == producers * perProducer { return }
        }
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<producers {
        group.addTask {
          for index in 0..<perProducer {
            station.pour(.pour(producer: producer, index: index))
            if index.isMultiple(of: 1_000) { await Task.yield() }
          }
        }
      }
    }
    await echoes.finish()
    for observer in observers { await observer.value }
    let state = await station.state
    #expect(state.total == producers * perProducer)
    #expect(state.next == Array(repeating: perProducer, count: producers))
    #expect(state.outOfOrder == 0)
    #expect(state.echoes == 16)
    #expect(regressions.all.isEmpty)
    #expect(Set(seen.all) == Set(0..<8))
  }

  @Test func aComposedFeatureUnderLoad() async {
    let rows = 64
    let perRow = scaled(2_000)
    var initial = Parent.State()
    initial.rows = IdentifiedArray((0..<rows).map { Child.State(id: $0) })
    let station = Station(initialState: initial) { Parent() }
    await withTaskGroup(of: Void.self) { group in
      for row in 0..<rows {
        group.addTask {
          for index in 0..<perRow {
            station.pour(.rows(.element(id: row, action: .increase)))
            station.pour(.child(.increase))
            if index.isMultiple(of: 500) { await Task.yield() }
          }
        }
      }
    }
    let state = await station.state
    #expect(state.rows.map(\.count) == Array(repeating: perRow, count: rows))
    #expect(state.child.count == rows * perRow)
    #expect(state.changeCount == rows * perRow)
  }

  @Test func keyedPoliciesUnderChurnLeaveNothingBehind() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let effects = scaled(100_000)
    let policies: [EffectPolicy] = [.concurrent, .cancelInFlight, .dropNew, .enqueue]
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for index in stride(from: worker, to: effects, by: 4) {
            let id = index % 97
            station.pour(
              .run(Effect.run { _ in await Task.yield() }.cancellable(id: id, policy: policies[index % 4])))
            if index.isMultiple(of: 3) { station.pour(.run(.cancel(id: id))) }
            if index.isMultiple(of: 1_000) { await Task.yield() }
          }
        }
      }
    }
    // Every effect ends, cancelled or not, and the registry forgets them all.
    await station.pour(.record("done")).finish()
    await station.rootHandler!.effects.waitUntilIdle()
    #expect(station.rootHandler!.effects.snapshot.isEmpty)
  }
}
