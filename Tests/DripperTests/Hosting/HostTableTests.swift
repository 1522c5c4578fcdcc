import Testing

@testable import Dripper

/// The host's state machine, driven synchronously: residents are numbers, stored states strings,
/// waiting pours strings.
@Suite struct HostTableTests {
  typealias Table = HostTable<String, Int, String, String>

  private func activate(_ key: String, as resident: Int, in table: inout Table, busy: Set<Int> = [])
    -> [String]
  {
    guard case .activate = table.use(key, at: 0, isIdle: { !busy.contains($0) }) else {
      Issue.record("\(key) did not activate")
      return []
    }
    _ = table.activated(key, resident)
    return table.residentKeys
  }

  @Test func concurrentFirstUsesShareOneActivationAndWaitInOrder() {
    var table = Table(maximumResident: 10)
    guard case .activate(nil, let evicting) = table.use("a", at: 0, isIdle: { _ in true }) else {
      Issue.record("the first use did not activate")
      return
    }
    #expect(evicting.isEmpty)
    table.buffer("first", for: "a")
    for pour in ["second", "third"] {
      guard case .buffer = table.use("a", at: 0, isIdle: { _ in true }) else {
        Issue.record("not buffered")
        return
      }
      table.buffer(pour, for: "a")
    }
    #expect(table.activated("a", 1) == ["first", "second", "third"])
    guard case .post(1) = table.use("a", at: 0, isIdle: { _ in true }) else {
      Issue.record("not posted")
      return
    }
    #expect(table.counts.activations == 1)
  }

  @Test func theLeastRecentlyUsedIdleKeysAreEvictedPastTheCap() {
    var table = Table(maximumResident: 3)
    _ = activate("a", as: 1, in: &table)
    _ = activate("b", as: 2, in: &table)
    _ = activate("c", as: 3, in: &table)
    _ = table.use("a", at: 0, isIdle: { _ in true })  // a is used again: b is now the least recent
    #expect(table.residentKeys == ["a", "c", "b"])
    guard case .activate(_, let evicting) = table.use("d", at: 0, isIdle: { _ in true }) else {
      Issue.record("d did not activate")
      return
    }
    #expect(evicting.map(\.key) == ["b"])
    #expect(table.counts.passivating == 1)
    // Counted once it is closed, with the passivations it is a part of.
    #expect(table.counts.evictions == 0)
    #expect(table.mayClose("b", at: 0).close)
    _ = table.closed("b", stored: nil)
    #expect(table.counts.evictions == 1)
    #expect(table.counts.passivations == 1)
  }

  /// Issue 57: a passivation given up (the key got busy) is no eviction: evictions never exceed
  /// passivations.
  @Test func anEvictionGivenUpIsNotCounted() {
    var table = Table(maximumResident: 1)
    _ = activate("a", as: 1, in: &table)
    guard case .activate(_, let evicting) = table.use("b", at: 0, isIdle: { _ in true }) else {
      Issue.record("b did not activate")
      return
    }
    #expect(evicting.map(\.key) == ["a"])
    _ = table.cancelPassivation("a", at: 0)
    #expect(table.counts.evictions == 0)
    #expect(table.counts.passivations == 0)
  }

  /// Issue 57: keys kept over the cap while busy are found once their effects end, least recently
  /// used first, and go then.
  @Test func busyKeysAboveTheCapAreFoundAndEvictedOnceIdle() {
    var table = Table(maximumResident: 2)
    var busy: Set<Int> = [1, 2, 3, 4]
    for (key, resident) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
      _ = activate(key, as: resident, in: &table, busy: busy)
    }
    #expect(table.counts.resident == 4)
    #expect(table.busyAboveCap { !busy.contains($0) }.map(\.key) == ["a", "b"])
    busy = [3, 4]
    #expect(table.evictions { !busy.contains($0) }.map(\.key) == ["a", "b"])
    #expect(table.busyAboveCap { !busy.contains($0) }.isEmpty)
  }

  @Test func aBusyKeyIsNotEvictedAndTheCapIsExceededUntilItIsIdle() {
    var table = Table(maximumResident: 1)
    _ = activate("a", as: 1, in: &table)
    guard case .activate(_, let evicting) = table.use("b", at: 0, isIdle: { $0 != 1 }) else {
      Issue.record("b did not activate")
      return
    }
    #expect(evicting.isEmpty)
    _ = table.activated("b", 2)
    #expect(table.counts.resident == 2)
  }

  /// The deadline of the least recently used key: when a host whose uses are stamped exactly
  /// (a test clock) wakes to passivate it.
  @Test func theNextIdleDeadlineIsTheLeastRecentlyUsedKeys() {
    var table = Table(maximumResident: 10)
    #expect(table.nextIdleDeadline(idleAfter: 100) == nil)
    _ = activate("a", as: 1, in: &table)
    _ = table.use("a", at: 30, isIdle: { _ in true })
    _ = activate("b", as: 2, in: &table)
    _ = table.use("b", at: 40, isIdle: { _ in true })
    #expect(table.nextIdleDeadline(idleAfter: 100) == 130)
    _ = table.use("a", at: 50, isIdle: { _ in true })
    #expect(table.nextIdleDeadline(idleAfter: 100) == 140)
    // A busy key found by a sweep is used then: it moves to the front.
    #expect(table.sweep(at: 140, idleAfter: 100) { $0 != 2 }.isEmpty)
    #expect(table.nextIdleDeadline(idleAfter: 100) == 150)
  }

  @Test func aKeyUnusedForTheIdlePeriodIsPassivatedAndAUseOrABusySweepRestartsIt() {
    var table = Table(maximumResident: 10)
    _ = activate("a", as: 1, in: &table)
    _ = activate("b", as: 2, in: &table)
    #expect(table.sweep(at: 50, idleAfter: 100) { _ in true }.isEmpty)
    _ = table.use("a", at: 60, isIdle: { _ in true })  // a used again
    #expect(table.sweep(at: 100, idleAfter: 100) { _ in true }.map(\.key) == ["b"])
    #expect(table.sweep(at: 150, idleAfter: 100) { $0 != 1 }.isEmpty)  // a busy: in use at 150
    #expect(table.sweep(at: 200, idleAfter: 100) { _ in true }.isEmpty)
    #expect(table.sweep(at: 250, idleAfter: 100) { _ in true }.map(\.key) == ["a"])
  }

  @Test func aPinnedKeyIsNeverPassivated() {
    var table = Table(maximumResident: 1)
    _ = activate("a", as: 1, in: &table)
    let pinned = table.pin("a")
    #expect(pinned)
    for time in 1...5 { #expect(table.sweep(at: Int64(time) * 100, idleAfter: 1) { _ in true }.isEmpty) }
    guard case .activate(_, let evicting) = table.use("b", at: 0, isIdle: { _ in true }) else { return }
    #expect(evicting.isEmpty)
    table.unpin("a", at: 600)
    #expect(table.sweep(at: 600, idleAfter: 1) { _ in true }.isEmpty)
    #expect(table.sweep(at: 601, idleAfter: 1) { _ in true }.map(\.key) == ["a"])
  }

  @Test func poursDuringAPassivationWaitAndActivateTheKeyAgainInOrder() {
    var table = Table(maximumResident: 10)
    _ = activate("a", as: 1, in: &table)
    #expect(table.passivate("a") == 1)
    // A pour before the Station closes makes it resident again.
    guard case .buffer = table.use("a", at: 0, isIdle: { _ in true }) else {
      Issue.record("not buffered")
      return
    }
    table.buffer("early", for: "a")
    let (close, buffer) = table.mayClose("a", at: 0)
    #expect(!close)
    #expect(buffer == ["early"])
    #expect(table.resident("a") == 1)
    // One while it closes makes it activate anew, from what it stored.
    #expect(table.passivate("a") == 1)
    #expect(table.mayClose("a", at: 0).close)
    guard case .buffer = table.use("a", at: 0, isIdle: { _ in true }) else {
      Issue.record("not buffered")
      return
    }
    table.buffer("late", for: "a")
    #expect(table.closed("a", stored: "state") == ["late"])
    #expect(table.activated("a", 2) == ["late"])
    #expect(table.counts.passivations == 1)
  }

  @Test func anInMemoryKeyKeepsItsStateWhenItCloses() {
    var table = Table(maximumResident: 10)
    _ = activate("a", as: 1, in: &table)
    _ = table.passivate("a")
    _ = table.mayClose("a", at: 0)
    #expect(table.closed("a", stored: "balance 5") == nil)
    #expect(table.counts.passive == 1)
    guard case .activate(let stored, _) = table.use("a", at: 0, isIdle: { _ in true }) else {
      Issue.record("a did not activate")
      return
    }
    #expect(stored == "balance 5")
  }

  @Test func aFailedKeyFailsItsPoursUntilItsRetryIsDue() {
    var table = Table(maximumResident: 10)
    _ = table.use("a", at: 0, isIdle: { _ in true })
    table.buffer("waiting", for: "a")
    #expect(table.activationFailed("a", JournalError("corrupt"), retryAt: 500) == ["waiting"])
    guard case .fail(JournalError("corrupt")) = table.use("a", at: 499, isIdle: { _ in true }) else {
      Issue.record("did not fail")
      return
    }
    guard case .activate = table.use("a", at: 500, isIdle: { _ in true }) else {
      Issue.record("not retried")
      return
    }
    #expect(table.counts.failed == 0)
  }

  /// Issue 57: a failed key is retried at its time by the clock's reading, not the coarse clock
  /// of uses, which a timer that sleeps long leaves behind.
  @Test func aFailedKeyIsRetriedByThePreciseClock() {
    var table = Table(maximumResident: 10)
    _ = table.use("a", at: 0, isIdle: { _ in true })
    _ = table.activationFailed("a", JournalError("corrupt"), retryAt: 500)
    guard case .activate = table.use("a", at: 0, preciseNow: { 500 }, isIdle: { _ in true }) else {
      Issue.record("not retried at 500, with the coarse clock at 0")
      return
    }
  }

  /// A live key's storage fails as it writes: it fails, its Station dropped, once; a Station of
  /// the key made since is not failed for the old one's error.
  @Test func aLiveKeyThatFailsIsDroppedOnce() {
    var table = Table(maximumResident: 10)
    _ = activate("a", as: 1, in: &table)
    #expect(table.failLive("a", JournalError("disk full"), retryAt: 9, isIt: { $0 == 2 }).failed == false)
    #expect(table.failLive("a", JournalError("disk full"), retryAt: 9, isIt: { $0 == 1 }).failed)
    #expect(table.resident("a") == nil)
    #expect(table.residentKeys.isEmpty)
    #expect(table.counts.failed == 1)
    #expect(table.counts.resident == 0)
    guard case .fail = table.use("a", at: 5, isIdle: { _ in true }) else {
      Issue.record("did not fail")
      return
    }
  }
}

extension HostTable {
  /// A use on a clock whose every reading is `now`.
  fileprivate mutating func use(_ key: Key, at now: Int64, isIdle: (Resident) -> Bool) -> PourDecision {
    use(key, at: now, preciseNow: { now }, isIdle: isIdle)
  }
}
