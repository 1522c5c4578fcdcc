import Testing

@testable import Dripper

@Suite struct CancellationTests {
  struct ID: Hashable, Sendable {}

  @Test func cancelStopsTheEffectsRunningUnderAnID() async {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "a").cancellable(id: ID()))
    await timed.run(timed.after(.seconds(1), record: "other"))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(1))
    #expect(await timed.log == ["other"])
  }

  @Test func cancelInFlightCancelsThePreviousEffect() async {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "first").cancellable(id: ID(), cancelInFlight: true))
    await timed.clock.advance(by: .milliseconds(500))
    await timed.run(timed.after(.seconds(1), record: "second").cancellable(id: ID(), cancelInFlight: true))
    await timed.clock.advance(by: .seconds(2))
    #expect(await timed.log == ["second"])
  }

  /// A modifier that puts an effect under `ID()`.
  enum UnderID: String, CaseIterable, Sendable {
    case concurrent, cancelInFlight, dropNew, enqueue, debounce, throttle

    func apply(_ effect: Effect<Runner.Action>, clock: TestClock) -> Effect<Runner.Action> {
      switch self {
      case .concurrent: effect.cancellable(id: ID())
      case .cancelInFlight: effect.cancellable(id: ID(), cancelInFlight: true)
      case .dropNew: effect.cancellable(id: ID(), policy: .dropNew)
      case .enqueue: effect.cancellable(id: ID(), policy: .enqueue)
      case .debounce: effect.debounce(id: ID(), for: .seconds(1), clock: clock)
      case .throttle: effect.throttle(id: ID(), for: .seconds(1), clock: clock, latest: true)
      }
    }
  }

  /// TCA's `testDoubleCancelInFlight`: an effect put twice under one id runs once. No modifier
  /// cancels, drops or queues an effect behind the very scope it runs in.
  @Test(arguments: UnderID.allCases, UnderID.allCases)
  func anEffectUnderTheSameIDTwiceRunsOnce(inner: UnderID, outer: UnderID) async {
    let timed = TimedRunner()
    let effect = outer.apply(
      inner.apply(timed.after(.seconds(1), record: "ran"), clock: timed.clock), clock: timed.clock)
    await timed.run(effect)
    await timed.clock.advance(by: .seconds(5))
    #expect(await timed.log == ["ran"], "\(inner) inside \(outer)")
    await timed.station.waitForEffectsToEnd()
  }

  @Test func idsAreScopedToTheirStation() async {
    let first = TimedRunner()
    let second = TimedRunner()
    await first.run(first.after(.seconds(1), record: "first").cancellable(id: ID()))
    await second.run(second.after(.seconds(1), record: "second").cancellable(id: ID()))
    await first.run(.cancel(id: ID()))
    await first.clock.advance(by: .seconds(1))
    await second.clock.advance(by: .seconds(1))
    #expect(await first.log == [])
    #expect(await second.log == ["second"])
  }

  @Test func cancellingAnIDCancelsEffectsQueuedUnderIt() async {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "running").cancellable(id: ID(), policy: .enqueue))
    await timed.run(timed.after(.seconds(1), record: "queued").cancellable(id: ID(), policy: .enqueue))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(5))
    #expect(await timed.log == [])
    #expect(timed.station.rootHandler!.effects.snapshot.isEmpty)
  }

  @Test func cancellingAnIDSkipsTheConcatenatedPartsThatHaveNotStarted() async {
    let timed = TimedRunner()
    let effect = Effect<Runner.Action>.concatenate(
      timed.after(.seconds(1), record: "first"),
      timed.after(.seconds(1), record: "cancelled part").cancellable(id: ID()),
      timed.after(.seconds(1), record: "last")
    )
    await timed.run(effect)
    // The second part has not started: TCA would let it run, since its id was not registered yet.
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(5))
    #expect(await timed.log == ["first", "last"])
  }

  @Test func cancellingAnOuterIDStopsAConcatenation() async {
    let timed = TimedRunner()
    let effect = Effect<Runner.Action>.concatenate(
      timed.after(.seconds(1), record: "first"),
      timed.after(.seconds(1), record: "second")
    )
    .cancellable(id: ID())
    await timed.run(effect)
    await timed.clock.advance(by: .seconds(1))
    await timed.run(.cancel(id: ID()))
    await timed.clock.advance(by: .seconds(5))
    #expect(await timed.log == ["first"])
  }

  @Test func aLongRunningSequenceEffectIsCancelledByItsID() async {
    let timed = TimedRunner()
    let (numbers, continuation) = AsyncStream.makeStream(of: Int.self)
    let effect = Effect<Runner.Action>.run { pour in
      for await number in numbers { await pour(.record("\(number)")) }
    }
    .cancellable(id: ID())
    let task = await timed.pour(.run(effect))
    continuation.yield(1)
    continuation.yield(2)
    await timed.run(.cancel(id: ID()))
    await task.finish()
    continuation.yield(3)
    let log = await timed.log
    #expect(!log.contains("3"))
    #expect(log == Array(["1", "2"].prefix(log.count)))
  }

  @Test func finishedAndCancelledEffectsLeaveNothingInTheRegistry() async {
    let station = Station(initialState: Runner.State()) { Runner() }
    var tasks: [PourTask] = []
    for index in 0..<100_000 {
      let effect = Effect<Runner.Action>.run { _ in }.cancellable(id: index % 100)
      tasks.append(station.pour(.run(effect)))
      if index.isMultiple(of: 7) { station.pour(.run(.cancel(id: index % 100))) }
    }
    for task in tasks { await task.finish() }
    let snapshot = station.rootHandler!.effects.snapshot
    #expect(snapshot.isEmpty, "\(snapshot)")
  }
}
