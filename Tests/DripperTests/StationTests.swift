import Synchronization
import Testing

@testable import Dripper

@Suite struct StationTests {
  // MARK: - Ordering (guarantees 1 to 3)

  @Test func actionsPouredByOneTaskAreReducedInOrder() async {
    let station = Station(initialState: Log.State()) { Log() }
    var last: PourTask?
    for index in 0..<10_000 { last = station.pour(.record("\(index)")) }
    await last?.finish()
    let entries = await station.entries
    #expect(entries == (0..<10_000).map { "\($0)" })
  }

  @Test func manyProducersLoseNothingAndKeepTheirOwnOrder() async {
    let station = Station(initialState: Log.State()) { Log() }
    let producers = 16
    let perProducer = 2_000
    await withTaskGroup(of: Void.self) { group in
      for producer in 0..<producers {
        group.addTask {
          for index in 0..<perProducer {
            if index.isMultiple(of: 100) {
              await station.pour(.record("\(producer):\(index)")).finish()
            } else {
              station.pour(.record("\(producer):\(index)"))
            }
          }
        }
      }
    }
    let entries = await station.entries
    #expect(entries.count == producers * perProducer)
    for producer in 0..<producers {
      let own = entries.filter { $0.hasPrefix("\(producer):") }
      #expect(own == (0..<perProducer).map { "\(producer):\($0)" })
    }
  }

  @Test func sentActionsAreReducedBeforeTheNextQueuedAction() async {
    let station = Station(initialState: Log.State()) { Log() }
    station.pour(.recordThenSend("a", then: "a's follow-up"))
    station.pour(.record("b"))
    #expect(await station.entries == ["a", "a's follow-up", "b"])
  }

  @Test func anEffectsPoursAreReducedInTheOrderPoured() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let effect = Effect<Runner.Action>.run { pour in
      for index in 0..<500 { await pour(.record("\(index)")) }
    }
    await station.pour(.run(effect)).finish()
    #expect(await station.log == (0..<500).map { "\($0)" })
  }

  @Test func aPourReturnsOnceItsActionIsReduced() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let seen = Recorder<[String]>()
    let effect = Effect<Runner.Action>.run { pour in
      await pour(.record("x"))
      // The reduction happened: a read through the Station sees it.
      seen.append(await station.log)
    }
    await station.pour(.run(effect)).finish()
    #expect(seen.all == [["x"]])
  }

  // MARK: - Composition of effects (guarantee 4)

  @Test func concatenatedEffectsRunOneAfterAnother() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let firstStarted = Gate()
    let release = Gate()
    let effect = Effect<Runner.Action>.concatenate(
      .run { pour in
        await pour(.record("first started"))
        firstStarted.open()
        await release.wait()
        await pour(.record("first ended"))
      },
      .send(.record("sent between")),
      .run { pour in await pour(.record("second")) }
    )
    let task = station.pour(.run(effect))
    await firstStarted.wait()
    release.open()
    await task.finish()
    #expect(await station.log == ["first started", "first ended", "sent between", "second"])
  }

  @Test func mergedEffectsRunTogether() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let gate = Gate()
    // The first effect can only end once the second has run: they must run at the same time.
    let effect = Effect<Runner.Action>.merge(
      .run { pour in
        await gate.wait()
        await pour(.record("first"))
      },
      .run { _ in gate.open() }
    )
    let finished: Void? = await withTimeout { await station.pour(.run(effect)).finish() }
    #expect(finished != nil)
    #expect(await station.log == ["first"])
  }

  @Test func finishWaitsForItsOwnEffectsAndNotForOtherPours() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let release = Gate()
    let holding = station.pour(
      .run(
        .run { pour in
          await release.wait()
          await pour(.record("held"))
        }))
    // A pour that started nothing is finished once reduced, while the first pour's effect runs.
    let plain: Void? = await withTimeout { await station.pour(.record("plain")).finish() }
    #expect(plain != nil)
    // A pour whose effect starts only through an action its reduction sent, and one whose effect
    // pours an action that starts another: both effects are the pour's, and `finish()` waits.
    await station.pour(.run(.send(.run(.run { pour in await pour(.record("sent's effect")) })))).finish()
    #expect(await station.log == ["plain", "sent's effect"])
    let nested = Effect<Runner.Action>.run { pour in
      await pour(.run(.run { pour in await pour(.record("nested effect")) }))
    }
    await station.pour(.run(nested)).finish()
    #expect(await station.log == ["plain", "sent's effect", "nested effect"])
    release.open()
    await holding.finish()
    #expect(await station.log == ["plain", "sent's effect", "nested effect", "held"])
  }

  // MARK: - Cancellation and lifetime (guarantee 5)

  @Test func cancellingAPourTaskCancelsItsEffectsAndFinishReturns() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let started = Gate()
    let sawCancellation = Gate()
    let effect = Effect<Runner.Action>.run { _ in
      await withTaskCancellationHandler {
        started.open()
        try? await Task.sleep(for: .seconds(3_600))
      } onCancel: {
        sawCancellation.open()
      }
    }
    let task = station.pour(.run(effect))
    await started.wait()
    #expect(!task.isCancelled)
    task.cancel()
    #expect(task.isCancelled)
    #expect(await withTimeout { await task.finish() } != nil)
    #expect(sawCancellation.isOpen)
  }

  @Test func cancellingEffectsByIDFromOutsideAReduction() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let started = Gate()
    let running = Effect<Runner.Action>.run { _ in
      started.open()
      try await Task.sleep(for: .seconds(3_600))
    }.cancellable(id: "work")
    let debounced = Effect<Runner.Action>.send(.record("debounced")).debounce(
      id: "work", for: .seconds(1), clock: TestClock())
    let waiting = station.pour(.run(debounced))
    let first = station.pour(.run(running))
    await started.wait()
    await station.reducePending()
    station.cancelEffects(id: "work")
    #expect(await withTimeout { await first.finish() } != nil)
    #expect(await withTimeout { await waiting.finish() } != nil)
    #expect(await station.log.isEmpty)
    // A scoped Station cancels in its root.
    let third = station.pour(.run(running))
    await station.reducePending()
    station.scope(state: \.self, action: CasePath({ $0 }, extract: { $0 })).cancelEffects(id: "work")
    #expect(await withTimeout { await third.finish() } != nil)
  }

  @Test func reducePendingWaitsForEveryEarlierPour() async {
    let station = Station(initialState: Log.State()) { Log() }
    for index in 0..<1_000 { station.pour(.record("\(index)")) }
    await station.reducePending()
    #expect(await station.entries.count == 1_000)
  }

  @Test func cancellingBeforeTheReductionKeepsTheEffectsFromStarting() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let ran = Recorder<String>()
    let task = station.pour(.run(.run { _ in ran.append("ran") }))
    task.cancel()
    await task.finish()
    await station.pour(.record("after")).finish()
    #expect(ran.all.isEmpty)
    #expect(await station.log == ["after"])
  }

  @Test func cancellingTheTaskAwaitingFinishCancelsTheEffects() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let started = Gate()
    let sawCancellation = Gate()
    let effect = Effect<Runner.Action>.run { _ in
      await withTaskCancellationHandler {
        started.open()
        try? await Task.sleep(for: .seconds(3_600))
      } onCancel: {
        sawCancellation.open()
      }
    }
    let waiter = Task { await station.pour(.run(effect)).finish() }
    await started.wait()
    waiter.cancel()
    #expect(await withTimeout { await waiter.value } != nil)
    #expect(sawCancellation.isOpen)
  }

  @Test func releasingTheStationCancelsItsEffects() async {
    let started = Gate()
    let sawCancellation = Gate()
    let effect = Effect<Runner.Action>.run { _ in
      await withTaskCancellationHandler {
        started.open()
        try? await Task.sleep(for: .seconds(3_600))
      } onCancel: {
        sawCancellation.open()
      }
    }
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) { Runner() }
    let task = station!.pour(.run(effect))
    await started.wait()
    station = nil
    #expect(await withTimeout { await sawCancellation.wait() } != nil)
    #expect(await withTimeout { await task.finish() } != nil)
    #expect(task.isCancelled)
  }

  @Test func poursAfterTheStationIsGoneAreDroppedWithADiagnostic() async {
    let sink = DiagnosticsSink()
    let escaped = Lock<Pour<Runner.Action>?>(nil)
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    await station!.pour(.run(.run { pour in escaped.withLock { $0 = pour } })).finish()
    station = nil
    // A task that outlives the effect (and was never cancelled) pours through the escaped pour.
    await Task.detached { await escaped.withLock { $0 }!(.record("late")) }.value
    #expect(sink.all.map(\.kind) == [.droppedPour])
    #expect(
      sink.all.map(\.message) == [#"dropped .record("late"): it was poured after its Station was released"#])
  }

  // MARK: - Errors

  @Test func anUncaughtErrorIsReportedAndTheStationCarriesOn() async {
    struct Boom: Error {}
    let sink = DiagnosticsSink()
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    let origin = "DripperTests/StationTests.swift:\(#line + 1)"
    await station.pour(.run(.run { _ in throw Boom() })).finish()
    await station.pour(.record("still here")).finish()
    #expect(sink.all.map(\.kind) == [.uncaughtError])
    #expect(sink.all.first?.error is Boom)
    #expect(
      sink.all.map(\.message) == [
        "an effect started at \(origin) threw Boom(), which no 'catch' handled"
      ])
    #expect(await station.log == ["still here"])
  }

  @Test func aCatchHandlerTurnsAnErrorIntoActions() async {
    struct Boom: Error {}
    let sink = DiagnosticsSink()
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    let effect = Effect<Runner.Action>.run { _ in
      throw Boom()
    } catch: { error, pour in
      await pour(.record("caught \(error)"))
    }
    await station.pour(.run(effect)).finish()
    #expect(await station.log == ["caught Boom()"])
    #expect(sink.all.isEmpty)
  }

  @Test func aCancellationErrorIsNotAFailure() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.run(.run { _ in throw CancellationError() })).finish()
    #expect(sink.all.isEmpty)
  }

  @Test func aFailingEffectDoesNotAffectOthers() async {
    struct Boom: Error {}
    let sink = DiagnosticsSink()
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    let effect = Effect<Runner.Action>.merge(
      .run { _ in throw Boom() },
      .run { pour in await pour(.record("survivor")) }
    )
    await station.pour(.run(effect)).finish()
    #expect(await station.log == ["survivor"])
    #expect(sink.all.count == 1)
  }

  // MARK: - Volume (guarantee 6)

  @Test func a100000SynchronousPoursDoNotOverflowOrBlock() async {
    struct Count: Dripper {
      var body: some Dripper<Int, Int> {
        Drip { state, action in
          state += action
          return .none
        }
      }
    }
    let station = Station(initialState: 0) { Count() }
    var last: PourTask?
    for _ in 0..<100_000 { last = station.pour(1) }
    await last?.finish()
    #expect(await station.state == 100_000)
  }

  // MARK: - Reading state

  @Test func dynamicMemberReadsSeeEveryEarlierPour() async {
    let station = Station(initialState: Log.State()) { Log() }
    station.pour(.record("a"))
    #expect(await station.entries == ["a"])
    station.pour(.record("b"))
    #expect(await station.state.entries == ["a", "b"])
  }

  @Test func pourTasksCompareByPour() {
    let station = Station(initialState: Log.State()) { Log() }
    let first = station.pour(.record("a"))
    let copy = first
    let second = station.pour(.record("b"))
    #expect(first == copy)
    #expect(first != second)
    #expect(Set([first, copy, second]).count == 2)
  }
}
