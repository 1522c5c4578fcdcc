import Dispatch
import Foundation
import Testing

@testable import Dripper

/// Pours from many OS threads at once (issue 14): none crashes the process, none is lost, each
/// producer's order holds, and every action is reduced without waiting for a later pour or a
/// read of the state. Each runs in a process of its own, so that a crash fails the test rather
/// than the run.
@Suite struct ManyThreadsTests {
  @Test(arguments: [32, 64])
  func poursFromManyOSThreadsAreAllReducedInOrder(threads: Int) async {
    let perThread = scaled(2_000)
    let trials = max(1, scaled(10))
    await #expect(processExitsWith: .success) {
      [threads, perThread = perThread as Int, trials = trials as Int] in
      for _ in 0..<trials {
        let station = Station(initialState: Tally.State(next: Array(repeating: 0, count: threads))) {
          Tally()
        }
        let expected = threads * perThread
        // Watch the total from before the first pour: the stream's subscription is the only read
        // of the state until every pour has been seen reduced.
        let subscribed = Gate()
        let watcher = Task {
          var totals = station.observe(\.total).makeAsyncIterator()
          guard await totals.next() == 0 else { return false }
          subscribed.open()
          while let total = await totals.next() {
            if total == expected { return true }
          }
          return false
        }
        await subscribed.wait()
        let finished = DispatchGroup()
        for producer in 0..<threads {
          finished.enter()
          let thread = Thread {
            for index in 0..<perThread { station.pour(.pour(producer: producer, index: index)) }
            finished.leave()
          }
          thread.start()
        }
        await withCheckedContinuation { continuation in
          finished.notify(queue: .global()) { continuation.resume() }
        }
        let reached = await withTimeout(.seconds(30)) {
          await withTaskCancellationHandler {
            await watcher.value
          } onCancel: {
            watcher.cancel()
          }
        }
        guard reached == true else { exit(3) }  // An action waited for a later pour.
        let state = await station.state
        guard state.outOfOrder == 0, state.next == Array(repeating: perThread, count: threads) else {
          exit(4)
        }
      }
    }
  }
}
