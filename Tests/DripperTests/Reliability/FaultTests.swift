import Synchronization
import Testing

@testable import Dripper

@Suite struct FaultTests {
  @Test func throwingEffectsAreReportedAndOthersCarryOn() async {
    struct Boom: Error {}
    let failures = Recorder<String>()
    let station = Station(
      initialState: Runner.State(),
      observers: [
        DripperObserver(
          effect: { if case .failed(let error) = $0.kind { failures.append("\(error)") } },
          diagnostic: { failures.append($0.kind == .uncaughtError ? "reported" : "other") })
      ]
    ) { Runner() }
    let effects = (0..<100).map { index in
      Effect<Runner.Action>.run { pour in
        if index.isMultiple(of: 3) { throw Boom() }
        await pour(.record("\(index)"))
      }
    }
    await station.pour(.run(.merge(effects))).finish()
    #expect(await station.log.count == 66)
    #expect(failures.all.filter { $0 == "Boom()" }.count == 34)
    #expect(failures.all.filter { $0 == "reported" }.count == 34)
  }

  @Test func anEffectThatIgnoresCancellationForAWhileIsWaitedFor() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let started = Gate()
    let release = Gate()
    let stubborn = Effect<Runner.Action>.run { pour in
      started.open()
      await release.wait()  // ignores cancellation until released
      await pour(.record("after cancellation"))  // dropped: the effect is cancelled
    }
    let task = station.pour(.run(stubborn))
    await started.wait()
    task.cancel()
    let finishing = Task { await task.finish() }
    release.open()
    await finishing.value
    #expect(await station.log == [])
    #expect(station.rootHandler!.effects.snapshot.isEmpty)
  }

  @Test func poursFromDeepInsideDetachedTasksAfterTheStationIsGoneAreReported() async {
    let sink = DiagnosticsSink()
    let escaped = Lock<Pour<Runner.Action>?>(nil)
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    await station!.pour(.run(.run { pour in escaped.withLock { $0 = pour } })).finish()
    let handler = station!.rootHandler!
    station = nil
    let pour = escaped.withLock { $0 }!
    await Task.detached {
      await Task.detached {
        await withTaskGroup(of: Void.self) { group in
          for index in 0..<10 { group.addTask { await pour(.record("\(index)")) } }
        }
      }.value
    }.value
    #expect(sink.all.count == 10)
    #expect(sink.all.allSatisfy { $0.kind == .droppedPour })
    #expect(await handler.state.log.isEmpty)
  }

  @Test func anEnormousMergeRunsEveryPart() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    let count = scaled(10_000)
    let effects = (0..<count).map { _ in Effect<Runner.Action>.run { pour in await pour(.record("x")) } }
    await station.pour(.run(.merge(effects))).finish()
    #expect(await station.log.count == count)
    #expect(station.rootHandler!.effects.snapshot.isEmpty)
  }

  @Test func releasingAStationWithTenThousandEffectsInFlightCancelsThemAll() async {
    let cancelled = Recorder<Int>()
    let started = Recorder<Int>()
    let count = scaled(10_000)
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) { Runner() }
    let effects = (0..<count).map { index in
      Effect<Runner.Action>.run { _ in
        started.append(index)
        await withTaskCancellationHandler {
          try? await Task.sleep(for: .seconds(3_600))
        } onCancel: {
          cancelled.append(index)
        }
      }
    }
    weak let handler = station!.rootHandler
    do {
      let task = station!.pour(.run(.merge(effects)))
      await station!.reducePending()
      station = nil
      #expect(await bounded { await task.finish() } != nil)
    }
    // Every effect that started saw cancellation; the others never ran.
    #expect(Set(cancelled.all) == Set(started.all))
    // Once its effects' tasks are gone (and the PourTask, which refers to it), nothing keeps the
    // handler alive.
    let deadline = ContinuousClock.now.advanced(by: patience)
    while handler != nil, ContinuousClock.now < deadline { await Task.yield() }
    #expect(handler == nil)
  }
}

/// Runs `operation` within the tests' ``patience``; returns `nil` if it did not finish.
func bounded<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
  await withTimeout(patience, operation)
}
