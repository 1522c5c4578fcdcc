import Testing

@testable import Dripper

@Suite struct EffectPolicyTests {
  struct ID: Hashable, Sendable {}

  /// Starts "first" at 0 s and "second" at 0.5 s, each taking one second, under `policy`.
  private func race(_ policy: EffectPolicy) async -> (TimedRunner, [String]) {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "first").cancellable(id: ID(), policy: policy))
    await timed.clock.advance(by: .milliseconds(500))
    await timed.run(timed.after(.seconds(1), record: "second").cancellable(id: ID(), policy: policy))
    var log: [String] = []
    for _ in 0..<6 {
      await timed.clock.advance(by: .milliseconds(500))
      log.append("\(timed.clock.now.offset): \(await timed.log.joined(separator: ","))")
    }
    return (timed, log)
  }

  @Test func concurrentRunsAlongside() async {
    let (_, log) = await race(.concurrent)
    #expect(log.prefix(2) == ["1.0 seconds: first", "1.5 seconds: first,second"])
  }

  @Test func cancelInFlightRestarts() async {
    let (_, log) = await race(.cancelInFlight)
    #expect(log.prefix(2) == ["1.0 seconds: ", "1.5 seconds: second"])
  }

  @Test func dropNewIgnoresWhileOneRuns() async {
    let (timed, log) = await race(.dropNew)
    #expect(log.last == "3.5 seconds: first")
    // Once the first has finished, a new one runs.
    await timed.run(timed.after(.seconds(1), record: "third").cancellable(id: ID(), policy: .dropNew))
    await timed.clock.advance(by: .seconds(1))
    #expect(await timed.log == ["first", "third"])
  }

  @Test func enqueueRunsOneAfterAnotherInArrivalOrder() async {
    let (_, log) = await race(.enqueue)
    // The second starts when the first ends, at 1 s, and takes a second.
    #expect(log.prefix(3) == ["1.0 seconds: first", "1.5 seconds: first", "2.0 seconds: first,second"])
  }

  @Test func enqueueKeepsArrivalOrderForMany() async {
    let timed = TimedRunner()
    for index in 0..<5 {
      await timed.run(timed.after(.seconds(1), record: "\(index)").cancellable(id: ID(), policy: .enqueue))
    }
    await timed.clock.advance(by: .seconds(2))
    #expect(await timed.log == ["0", "1"])
    await timed.clock.advance(by: .seconds(3))
    #expect(await timed.log == ["0", "1", "2", "3", "4"])
  }

  @Test func aPourTaskWaitsForItsQueuedEffect() async {
    let timed = TimedRunner()
    await timed.run(timed.after(.seconds(1), record: "first").cancellable(id: ID(), policy: .enqueue))
    let queued = await timed.pour(
      .run(timed.after(.seconds(1), record: "second").cancellable(id: ID(), policy: .enqueue)))
    await timed.clock.advance(by: .seconds(2))
    await queued.finish()
    #expect(await timed.log == ["first", "second"])
  }
}
