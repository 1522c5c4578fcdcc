import Synchronization
import Testing

@testable import Dripper

/// The effect behaviours the second engine fixed (issue 13), each with the test that failed
/// before: ids reach every waiting part, a cancelled throttle leaves its id usable, pours after
/// release and from ended effects are reported.
@Suite struct EffectEngineTests {
  struct ID: Hashable, Sendable {}

  // MARK: - Ids reach every waiting part, wherever it sits

  @Test func cancellingAnIDReachesADebounceInsideAConcatenate() async {
    let timed = TimedRunner()
    let effect = Effect<Runner.Action>.concatenate(
      .send(.record("first")),
      timed.after(.milliseconds(10), record: "second"),
      .send(.record("debounced")).debounce(id: ID(), for: .seconds(1), clock: timed.clock)
    )
    await timed.run(effect)
    await timed.clock.advance(by: .milliseconds(10))
    // The debounce now waits on the clock, inside the concatenate's third part.
    #expect(await timed.log == ["first", "second"])
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(2))
    #expect(await timed.log == ["first", "second"])
    #expect(timed.station.rootHandler!.effects.snapshot.isIdle)
  }

  @Test func cancelInFlightReplacesADebounceInsideAConcatenate() async {
    let timed = TimedRunner()
    func search(_ query: String) -> Effect<Runner.Action> {
      .concatenate(
        timed.after(.milliseconds(10), record: "typed \(query)"),
        .send(.record("searched \(query)")).debounce(id: ID(), for: .seconds(1), clock: timed.clock)
      )
    }
    await timed.run(search("a"))
    await timed.clock.advance(by: .milliseconds(500))
    await timed.run(search("ab"))
    await timed.clock.advance(by: .seconds(3))
    #expect(await timed.log == ["typed a", "typed ab", "searched ab"])
  }

  @Test func cancellingAnIDReachesADebounceInAMergeInAConcatenate() async {
    let timed = TimedRunner()
    let effect = Effect<Runner.Action>.concatenate(
      timed.after(.milliseconds(10), record: "first"),
      .merge(
        timed.after(.seconds(5), record: "merged"),
        .send(.record("debounced")).debounce(id: ID(), for: .seconds(1), clock: timed.clock)
      )
    )
    await timed.run(effect)
    await timed.clock.advance(by: .milliseconds(10))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(10))
    #expect(await timed.log == ["first", "merged"])
  }

  @Test func cancellingAnIDReachesAnEffectQueuedInsideAConcatenate() async {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "running").cancellable(id: ID(), policy: .enqueue))
    await timed.run(
      .concatenate(
        .send(.record("first")),
        timed.after(.seconds(1), record: "queued").cancellable(id: ID(), policy: .enqueue),
        .send(.record("last"))
      ))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(5))
    // The queued part is cancelled where it waits; the concatenate goes on with its next part.
    #expect(await timed.log == ["first", "last"])
    #expect(timed.station.rootHandler!.effects.snapshot.isEmpty)
  }

  @Test func aNestedIDIsCarriedOnce() async {
    let timed = TimedRunner()
    var effect = timed.after(.seconds(1), record: "nested")
    for _ in 0..<1_000 { effect = effect.cancellable(id: ID()) }
    await timed.run(effect)
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(2))
    #expect(await timed.log == [])
    #expect(timed.station.rootHandler!.effects.snapshot.isEmpty)
  }

  // MARK: - A cancelled throttle leaves its id usable

  enum Cancellation: CaseIterable { case pourTask, allEffects, id }

  @Test(arguments: Cancellation.allCases)
  func cancellingAThrottlesHeldEffectLeavesTheIDUsable(_ cancellation: Cancellation) async {
    let timed = TimedRunner()
    func throttled(_ name: String) -> Effect<Runner.Action> {
      .send(.record(name)).throttle(id: ID(), for: .seconds(1), clock: timed.clock, latest: true)
    }
    await timed.run(throttled("1"))
    let held = await timed.pour(.run(throttled("2")))
    switch cancellation {
    case .pourTask: held.cancel()
    case .allEffects: timed.station.cancelEffects()
    case .id: await timed.run(.cancel(id: ID()))
    }
    await timed.clock.advance(by: .seconds(2))
    let third = await timed.pour(.run(throttled("3")))
    let finished = await withTimeout { () -> Bool in
      await third.finish()
      return true
    }
    #expect(finished != nil, "the throttled effect never finished")
    #expect(await timed.log == ["1", "3"])
  }

  @Test func aThrottleWindowIsForgottenWhenItEnds() async {
    let timed = TimedRunner()
    for id in 0..<1_000 {
      await timed.run(
        .send(.record("\(id)")).throttle(id: id, for: .seconds(1), clock: timed.clock, latest: true))
    }
    await timed.clock.advance(by: .seconds(2))
    for id in 1_000..<1_100 {
      await timed.run(
        .send(.record("\(id)")).throttle(id: id, for: .seconds(1), clock: timed.clock, latest: true))
    }
    // Ended windows are swept once the windows have doubled since the last sweep: the 1,000 that
    // ended went when the count reached 1,024, leaving those opened since.
    #expect(timed.station.rootHandler!.effects.snapshot.windows <= 100)
  }

  // MARK: - Pours after release, and from an effect that ended

  @Test func anEffectThatIgnoresCancellationAndPoursAfterReleaseIsReported() async {
    let sink = DiagnosticsSink()
    let release = Gate()
    let started = Gate()
    var station: StationOf<Runner>? = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    station!.pour(
      .run(
        .run { pour in
          started.open()
          await Task.detached { await release.wait() }.value  // Waits on, cancelled or not.
          await pour(.record("late"))
        }))
    await started.wait()
    station = nil
    release.open()
    let reported = await withTimeout { () -> Bool in
      while sink.all.isEmpty, !Task.isCancelled { await Task.yield() }
      return !sink.all.isEmpty
    }
    #expect(reported != nil)
    #expect(sink.all.map(\.kind) == [.droppedPour])
    #expect(
      sink.all.map(\.message) == [#"dropped .record("late"): it was poured after its Station was released"#])
  }

  @Test func aPourFromAnEffectThatEndedIsReportedAndReduced() async {
    let sink = DiagnosticsSink()
    let escaped = Lock<Pour<Runner.Action>?>(nil)
    let station = Station(initialState: Runner.State()) {
      Runner()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.run(.run { pour in escaped.withLock { $0 = pour } })).finish()
    await escaped.withLock { $0 }!(.record("late"))
    #expect(await station.log == ["late"])
    #expect(sink.all.map(\.kind) == [.pourFromEndedEffect])
    #expect(
      sink.all.first?.message.hasPrefix("an action was poured from an effect that had already ended") == true)
  }
}

extension EffectEngineTests {
  /// An effect that ignores cancellation until the gate opens.
  private func stubborn(_ gate: Gate, record name: String) -> Effect<Runner.Action> {
    .run { pour in
      await Task.detached { await gate.wait() }.value
      await pour(.record(name))
    }
  }

  @Test(arguments: [EffectPolicy.dropNew, .enqueue])
  func aCancelledEffectFreesItsIDAtOnce(policy: EffectPolicy) async {
    let timed = TimedRunner()
    let gate = Gate()
    let stubbornTask = await timed.pour(
      .run(stubborn(gate, record: "cancelled").cancellable(id: ID(), policy: policy)))
    await timed.run(.cancel(id: ID()))
    // The first effect is cancelled but its task has not ended: the id is free all the same.
    await timed.run(.send(.record("next")).cancellable(id: ID(), policy: policy))
    #expect(await timed.log == ["next"])
    gate.open()
    // Its task ends while the Station is alive: what a cancelled effect pours is not reduced.
    await stubbornTask.finish()
    #expect(await timed.log == ["next"])
  }
}
