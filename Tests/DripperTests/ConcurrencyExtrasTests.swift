import Dripper
import Testing

/// Issue 53: what TCA re-exports from swift-concurrency-extras, as TCA's tests use it.
@Suite struct ConcurrencyExtrasTests {
  struct Failure: Error, Equatable {}

  @Test func lockIsolatedCountsFromManyTasks() async {
    let count = LockIsolated(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 { group.addTask { for _ in 0..<1000 { count.withValue { $0 += 1 } } } }
    }
    #expect(count.value == 8000)
    count.setValue(-1)
    #expect(count == LockIsolated(-1))
  }

  @Test func actorIsolatedReadsAndWrites() async {
    let events = ActorIsolated<[String]>([])
    await events.withValue { $0.append("opened") }
    await events.setValue(await events.value + ["closed"])
    #expect(await events.value == ["opened", "closed"])
  }

  @Test func taskNeverWaitsUntilCancelled() async {
    let task = Task { () async throws -> Int in try await Task.never() }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func neverStreamsEndOnlyWhenCancelledAndFinishedOnesAtOnce() async throws {
    var finished = 0
    for await _ in AsyncStream<Int>.finished { finished += 1 }
    for try await _ in AsyncThrowingStream<Int, any Error>.finished { finished += 1 }
    #expect(finished == 0)
    let listener = Task { () -> Int in
      var yielded = 0
      for await _ in AsyncStream<Int>.never { yielded += 1 }
      return yielded
    }
    listener.cancel()
    #expect(await listener.value == 0)
  }

  /// Issue 60: TCA's `AsyncThrowingStream.finished(throwing:)`, called as `.finished()` too.
  @Test func aFinishedThrowingStreamEndsWithItsError() async {
    let ended: AsyncThrowingStream<Int, any Error> = .finished()
    var count = 0
    await #expect(throws: Never.self) { for try await _ in ended { count += 1 } }
    await #expect(throws: Failure()) {
      for try await _ in AsyncThrowingStream<Int, any Error>.finished(throwing: Failure()) { count += 1 }
    }
    #expect(count == 0)
  }

  @Test func resultFromAnAsyncThrowingCall() async throws {
    func fetch(_ fails: Bool) async throws -> Int {
      await Task.yield()
      if fails { throw Failure() }
      return 42
    }
    let success = await Result { try await fetch(false) }
    #expect(try success.get() == 42)
    let failure = await Result { try await fetch(true) }
    #expect(throws: Failure.self) { try failure.get() }
    let typed = await Result { () async throws(Failure) -> Int in throw Failure() }
    #expect(typed == .failure(Failure()))
  }
}
