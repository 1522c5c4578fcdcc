import Observation
import Synchronization
import Testing

@testable import Dripper

/// A feature with a counter, a list, and an event.
struct Board: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var items: [Int] = []
    var label = ""
  }

  struct Toast: Equatable, Sendable {
    let text: String
  }

  enum Action: Sendable {
    case increase
    case add(Int)
    case rename(String)
    case toast(String)
    case nothing
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase: state.count += 1
      case .add(let item): state.items.append(item)
      case .rename(let label): state.label = label
      case .toast(let text): return .emit(Toast(text: text))
      case .nothing: break
      }
      return .none
    }
  }
}

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

@Suite struct DerivedTests {
  @Test func aDerivedValueIsComputedOncePerReductionWhateverItsObservers() async {
    let station = Station(initialState: Board.State()) { Board() }
    let total = station.derived { $0.items.reduce(0, +) }
    var iterators = (0..<5).map { _ in total.values.buffering(.unbounded).makeAsyncIterator() }
    for index in iterators.indices { #expect(await iterators[index].next() == 0) }
    let before = total.computations
    for item in 1...10 { station.pour(.add(item)) }
    #expect(await total.value == 55)
    #expect(total.computations - before == 10)
    for index in iterators.indices { #expect(await iterators[index].next() == 1) }
  }

  @Test func derivedValuesChain() async {
    let station = Station(initialState: Board.State()) { Board() }
    let evens = station.derived { $0.items.filter { $0.isMultiple(of: 2) } }
    let count = evens.derived { $0.count }
    var counts = count.values.buffering(.unbounded).makeAsyncIterator()
    #expect(await counts.next() == 0)
    station.pour(.add(1))
    station.pour(.add(2))
    station.pour(.add(3))
    station.pour(.add(4))
    #expect(await count.value == 2)
    #expect(await counts.next() == 1)
    #expect(await counts.next() == 2)
    // The chained derivation ran only when `evens` changed: twice, plus its first value.
    #expect(count.computations == 3)
  }

  @Test func aDerivedValueThatIsReleasedStopsBeingComputed() async {
    let station = Station(initialState: Board.State()) { Board() }
    var derived: Derived<Int>? = station.derived { $0.count }
    #expect(await derived?.value == 0)
    #expect(station.rootHandler!.publishers.count == 1)
    derived = nil
    #expect(station.rootHandler!.publishers.count == 0)
  }
}

@Suite struct EventTests {
  @Test func eventsReachListenersInOrderAndAreNotReplayed() async {
    let station = Station(initialState: Board.State()) { Board() }
    station.pour(.toast("before anyone listened"))
    await station.reducePending()
    var toasts = station.events(of: Board.Toast.self).makeAsyncIterator()
    station.pour(.toast("saved"))
    station.pour(.toast("deleted"))
    #expect(await toasts.next()?.text == "saved")
    #expect(await toasts.next()?.text == "deleted")
    station.pour(.toast("again"))
    #expect(await toasts.next()?.text == "again")
  }
}

@Suite struct ObserverTests {
  @Test func observersAreToldOfEveryKindOfEvent() async {
    struct Boom: Error {}
    let log = Recorder<String>()
    let observer = DripperObserver<Runner.State, Runner.Action>(
      willReduce: { action, state in
        if case .record(let entry) = action { log.append("will \(entry) at \(state.log.count)") }
      },
      didReduce: { transition in
        if case .record = transition.action {
          log.append("did \(transition.old.log) -> \(transition.new.log)")
        }
      },
      effect: { event in
        switch event.kind {
        case .started: log.append("effect started")
        case .finished: log.append("effect finished")
        case .cancelled: log.append("effect cancelled")
        case .failed(let error): log.append("effect failed \(error)")
        }
      },
      diagnostic: { log.append("diagnostic \($0.kind)") },
      end: { log.append("end") })
    var station: StationOf<Runner>? = Station(initialState: Runner.State(), observers: [observer]) {
      Runner()
    }
    await station!.pour(.record("a")).finish()
    await station!.pour(.run(.run { pour in await pour(.record("b")) })).finish()
    await station!.pour(.run(.run { _ in throw Boom() })).finish()
    let task = station!.pour(.run(.run { _ in try await Task.sleep(for: .seconds(3_600)) }))
    task.cancel()
    await task.finish()
    station = nil
    let all = log.all
    #expect(all.prefix(2) == ["will a at 0", "did [] -> [\"a\"]"])
    #expect(all.contains("will b at 1"))
    #expect(all.contains("effect failed Boom()"))
    #expect(all.contains("diagnostic uncaughtError"))
    #expect(all.filter { $0 == "effect started" }.count >= 2)
    #expect(all.contains("effect finished"))
    #expect(all.last == "end")
  }

  @Test func aSubtreeObserverSeesItsSubtreeOnly() async {
    let seen = Recorder<String>()
    struct Feature: Dripper {
      let seen: Recorder<String>
      var body: some DripperOf<Parent> {
        Scope(state: \.child, action: .child) {
          Child().observe(DripperObserver(willReduce: { action, _ in seen.append("\(action)") }))
        }
      }
    }
    let station = Station(initialState: Parent.State()) { Feature(seen: seen) }
    station.pour(.showDetail)
    await station.pour(.child(.increase)).finish()
    #expect(seen.all == ["increase"])
  }
}

@Suite struct DiffTests {
  struct Item: Equatable {
    var id: Int
    var title: String
  }

  struct Screen: Equatable {
    enum Mode: Equatable {
      case viewing
      case editing(draft: String, at: Int)
    }
    var title = "Todos"
    var items: [Item] = [Item(id: 1, title: "Milk"), Item(id: 2, title: "Eggs")]
    var mode = Mode.viewing
    var selection: Int?
  }

  @Test func aNestedValueRendersReadably() {
    let lines = Dump.lines(Screen())
    #expect(
      lines == [
        "DiffTests.Screen(",
        "  title: \"Todos\"",
        "  items: [",
        "    [0]: DiffTests.Item(id: 1, title: \"Milk\")",
        "    [1]: DiffTests.Item(id: 2, title: \"Eggs\")",
        "  ]",
        "  mode: .viewing",
        "  selection: nil",
        ")",
      ])
  }

  @Test func aDiffShowsOnlyWhatChangedWithContext() {
    var new = Screen()
    new.items[1].title = "Oat milk"
    new.mode = .editing(draft: "Oat", at: 1)
    #expect(
      Diff.lines(from: Screen(), to: new) == [
        "  … (2 unchanged)",
        "    items: [",
        "      [0]: DiffTests.Item(id: 1, title: \"Milk\")",
        "-     [1]: DiffTests.Item(id: 2, title: \"Eggs\")",
        "+     [1]: DiffTests.Item(id: 2, title: \"Oat milk\")",
        "    ]",
        "-   mode: .viewing",
        "+   mode: .editing(draft: \"Oat\", at: 1)",
        "    selection: nil",
        "  )",
      ])
    #expect(Diff.lines(from: Screen(), to: Screen()) == nil)
  }

  @Test func setsAndDictionariesRenderInAStableOrder() {
    #expect(Dump.line(Set([3, 1, 2])) == "Set([1, 2, 3])")
    #expect(Dump.line(["b": 2, "a": 1]) == "[\"a\": 1, \"b\": 2]")
  }

  @Test func logChangesPrintsTheActionAndTheDiff() async {
    let log = Recorder<String>()
    let station = Station(initialState: Board.State()) {
      Board().logChanges(to: LogSink { log.append($0) }, label: "board")
    }
    await station.pour(.increase).finish()
    await station.pour(.nothing).finish()
    #expect(
      log.all == [
        """
        [board] received action: .increase
            Board.State(
          -   count: 0
          +   count: 1
              items: []
              label: ""
            )
        """,
        "[board] received action: .nothing\n  (no state change)",
      ])
  }
}

@Suite struct ObservableStationTests {
  @MainActor
  @Test func viewsAreToldOnlyOfThePartsTheyReadWhenTheyChange() async {
    let model = ObservableStation(initialState: Board.State()) { Board() }
    let countChanged = Gate()
    withObservationTracking {
      _ = model.count
    } onChange: {
      countChanged.open()
    }
    let labelChanged = Lock(false)
    withObservationTracking {
      _ = model.label
    } onChange: {
      labelChanged.withLock { $0 = true }
    }
    await model.pour(.increase).finish()
    await countChanged.wait()
    #expect(model.count == 1)
    #expect(!labelChanged.withLock { $0 })
    // Reading the whole state depends on every change.
    let stateChanged = Gate()
    withObservationTracking {
      _ = model.state
    } onChange: {
      stateChanged.open()
    }
    await model.pour(.rename("x")).finish()
    await stateChanged.wait()
    #expect(model.label == "x")
  }
}
