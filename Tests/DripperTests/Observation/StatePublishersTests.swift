import Testing

@testable import Dripper

/// The slice groups' state machine, driven directly and synchronously, step by step in the order
/// that threads can interleave them.
@Suite struct StatePublishersTests {
  /// One watcher of a slice, added as `StateHandler.subscribe` adds it.
  private func watch(
    _ publishers: StatePublishers<Int>, key: SliceKey
  ) -> (group: SliceGroup<Int, Int>, join: () -> (AsyncStream<Int>, AsyncStream<Int>.Continuation)) {
    let (number, group) = publishers.group(key: key, slice: { $0 }, isDuplicate: { $0 == $1 }, joining: true)
    return (
      group,
      {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        group.attach(continuation, current: group.current(computingFrom: 0), joined: true) {
          publishers.removeGroupIfEmpty(number, group) { group.isEmpty }
        }
        return (stream, continuation)
      }
    )
  }

  /// The last watcher leaves, on another thread, between a new watcher finding the group and
  /// joining it. Before the group kept a place for the newcomer, it was removed from the Station
  /// in between, and the newcomer then waited forever for a value that was never published to it
  /// (seen as a JobQueue client that never woke).
  @Test func aWatcherJoiningAsTheLastOneLeavesStillReceivesChanges() async {
    let publishers = StatePublishers<Int>()
    let key = SliceKey(\Int.self)
    let first = watch(publishers, key: key)
    let (kept, leaving) = first.join()

    let second = watch(publishers, key: key)  // finds the first watcher's group…
    #expect(second.group === first.group)
    leaving.finish()  // …which its last watcher leaves…
    let (stream, continuation) = second.join()  // …before the second joins it

    publishers.publish(1)
    publishers.publish(2)
    continuation.finish()
    var received: [Int] = []
    for await value in stream { received.append(value) }
    #expect(received == [0, 1, 2])
    #expect(publishers.count == 0)
    _ = kept
  }

  @Test func aGroupGoesWhenItsLastWatcherLeaves() {
    let publishers = StatePublishers<Int>()
    let key = SliceKey(\Int.self)
    let (streamA, a) = watch(publishers, key: key).join()
    let (streamB, b) = watch(publishers, key: key).join()
    #expect(publishers.count == 1)
    a.finish()
    #expect(publishers.count == 1)
    b.finish()
    #expect(publishers.count == 0)
    _ = (streamA, streamB)
  }
}
