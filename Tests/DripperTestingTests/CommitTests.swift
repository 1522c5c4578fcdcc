import DripperTesting
import Synchronization
import Testing

/// A counter with no action enum: its callers commit changes.
struct Tally: Equatable, Sendable {
  var count = 0
  var loaded: [Int] = []
}

@Suite struct CommitTests {
  @Test func commitsAreReducedInOrderOnTheStation() async {
    let station = CommitStation(initialState: Tally())
    for _ in 0..<1_000 { station.commit("increase") { $0.count += 1 } }
    station.commit("double") { $0.count *= 2 }
    await station.reducePending()
    #expect(await station.count == 2_000)
    await station.emit(Tally(count: 7)).finish()
    #expect(await station.state == Tally(count: 7))
  }

  @Test func aCommitsEffectCommitsInTurn() async {
    let station = CommitStation(initialState: Tally())
    await station.commit(
      "load",
      effect: { _ in
        .run { pour in await pour(Commit("loaded") { $0.loaded = [1, 2, 3] }) }
      }
    ).finish()
    #expect(await station.loaded == [1, 2, 3])
  }

  @Test func observersSeeCommitsByName() async {
    let seen = Recorder()
    let station = CommitStation(
      initialState: Tally(),
      observers: [DripperObserver(willReduce: { action, _ in seen.append("\(action)") })])
    await station.commit("increase") { $0.count += 1 }.finish()
    #expect(seen.values == ["commit(\"increase\")"])
  }

  @Test func aTestStationAssertsCommitsExhaustively() async {
    let station = TestStation(initialState: Tally())
    await station.commit("increase", { $0.count += 1 }, assert: { $0.count = 1 })
    await station.emit(Tally(count: 5)) { $0.count = 5 }
    await station.pour(
      Commit("load", effect: { _ in .run { pour in await pour(Commit("loaded") { $0.loaded = [4] }) } }))
    await station.receive(commit: "loaded") { $0.loaded = [4] }
    await station.finish()
  }

  @Test func aWrongCommitAssertionFailsWithADiff() async {
    let station = TestStation(initialState: Tally())
    await withExpectedFailure {
      await station.commit("increase", { $0.count += 1 }, assert: { $0.count = 2 })
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix(
        "The state after pouring commit(\"increase\") is not what was expected (- expected, + actual):")
        == true
    }
    await withExpectedFailure {
      await station.commit("increase again") { $0.count += 1 }
    } matching: {
      mentions("The state changed after pouring commit(\"increase again\"), but no change was expected")($0)
    }
    await station.finish()
  }

  @Test func aCommitNotReceivedFailsAtTheEnd() async {
    let station = TestStation(initialState: Tally())
    await station.pour(Commit("load", effect: { _ in .send(Commit("loaded") { $0.loaded = [1] }) }))
    await withExpectedFailure {
      await station.finish()
    } matching: { issue in
      issue.comments.map(\.rawValue) == ["1 action was received but not asserted:\n  commit(\"loaded\")"]
    }
  }
}

/// Records strings from any thread.
final class Recorder: Sendable {
  private let storage = Lock<[String]>([])
  func append(_ value: String) { storage.withLock { $0.append(value) } }
  var values: [String] { storage.withLock { $0 } }
}
