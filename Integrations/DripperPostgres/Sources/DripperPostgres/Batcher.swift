import Synchronization

/// Gathers the requests that arrive while others run, to run them together: the writes of many
/// keys in one transaction (group commit), or their claims.
///
/// A batch holds one request a key; a key's next request waits for the next batch, after this
/// one has run. At most `concurrent` batches run at once.
final class Batcher<Request: Sendable, Answer: Sendable>: Sendable {
  private struct Waiting {
    let request: Request
    let key: String
    let continuation: CheckedContinuation<Answer, Never>
  }

  private struct State {
    var waiting: [Waiting] = []
    var running = 0
  }

  private let state = Mutex(State())
  let maximumBatch: Int
  let concurrent: Int

  init(maximumBatch: Int, concurrent: Int) {
    self.maximumBatch = max(1, maximumBatch)
    self.concurrent = max(1, concurrent)
  }

  /// `request`'s answer, once the batch that holds it has run: `run` takes a batch's requests
  /// and returns one answer each, in order.
  func submit(
    _ request: Request, key: String, run: @escaping @Sendable ([Request]) async -> [Answer]
  ) async -> Answer {
    await withCheckedContinuation { continuation in
      let start = state.withLock { state -> Bool in
        state.waiting.append(Waiting(request: request, key: key, continuation: continuation))
        guard state.running < concurrent else { return false }
        state.running += 1
        return true
      }
      if start { Task { await self.drain(run) } }
    }
  }

  /// Runs what waits, batch after batch, until nothing does.
  private func drain(_ run: @Sendable ([Request]) async -> [Answer]) async {
    while let batch = takeBatch() {
      let answers = await run(batch.map(\.request))
      for (waiting, answer) in zip(batch, answers) { waiting.continuation.resume(returning: answer) }
    }
  }

  /// The next batch; `nil`, and one runner fewer, when nothing waits.
  private func takeBatch() -> [Waiting]? {
    state.withLock { state in
      guard !state.waiting.isEmpty else {
        state.running -= 1
        return nil
      }
      var batch: [Waiting] = []
      var rest: [Waiting] = []
      var keys: Set<String> = []
      for waiting in state.waiting {
        if batch.count < maximumBatch, keys.insert(waiting.key).inserted {
          batch.append(waiting)
        } else {
          rest.append(waiting)
        }
      }
      state.waiting = rest
      return batch
    }
  }
}
