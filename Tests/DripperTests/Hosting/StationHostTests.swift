import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Dripper

/// A host of accounts in memory, on a test clock.
private func memoryHost(
  clock: TestClock, idleAfter: Duration? = .seconds(60), maximumResident: Int = 100
) throws -> StationHost<String, Account> {
  try StationHost(
    lifetime: HostLifetime(
      idleAfter: idleAfter, maximumResident: maximumResident, time: .controlled(by: clock))
  ) { _ in
    Account.State()
  } dripper: { _ in
    Account()
  } withDependencies: { _, values in
    values.clock = clock
  }
}

@Suite struct StationHostTests {
  @Test func aPourActivatesItsKeyAndIsReduced() async throws {
    let host = try memoryHost(clock: TestClock())
    await host.pour(.deposit(5), to: "alice").finish()
    #expect(try await host.state(of: "alice").balance == 5)
    #expect(host.counts.activations == 1)
    #expect(host.counts.resident == 1)
    await host.pour(.deposit(2), to: "alice").finish()
    #expect(try await host.state(of: "alice").balance == 7)
    #expect(host.counts.activations == 1)
  }

  @Test func aRequestIsAppliedOncePerID() async throws {
    let host = try memoryHost(clock: TestClock())
    let first = try await host.pour(.deposit(10), to: "alice", id: "r1")
    let retry = try await host.pour(.deposit(10), to: "alice", id: "r1")
    let other = try await host.pour(.deposit(1), to: "alice", id: "r2")
    #expect(first == PourReceipt(sequence: 1, duplicate: false))
    #expect(retry == PourReceipt(sequence: 1, duplicate: true))
    #expect(other == PourReceipt(sequence: 3, duplicate: false))
    #expect(try await host.state(of: "alice").balance == 11)
  }

  @Test func anIdleKeyIsPassivatedOnTheClockAndComesBackWithItsState() async throws {
    let clock = TestClock()
    let host = try memoryHost(clock: clock)
    await host.pour(.deposit(5), to: "alice").finish()
    await clock.advance(by: .seconds(45))
    await host.settle()
    #expect(host.counts.resident == 1)
    await clock.advance(by: .seconds(30))
    await host.settle()
    #expect(host.counts.resident == 0)
    #expect(host.counts.passive == 1)
    await host.pour(.deposit(1), to: "alice").finish()
    #expect(try await host.state(of: "alice").balance == 6)
    #expect(host.counts.activations == 2)
  }

  /// Past the cap, the least recently used idle key is passivated to make room.
  @Test func theLeastRecentlyUsedKeyMakesRoomPastTheCap() async throws {
    let host = try memoryHost(clock: TestClock(), idleAfter: nil, maximumResident: 2)
    for key in ["a", "b"] { await host.pour(.deposit(1), to: key).finish() }
    await host.pour(.deposit(1), to: "a").finish()  // b is now the least recently used
    await host.pour(.deposit(1), to: "c").finish()
    await host.settle()
    #expect(host.residentKeys == ["c", "a"])
    #expect(host.counts.evictions == 1)
    #expect(try await host.state(of: "b").balance == 1)  // back from its passive state
  }

  /// A key's actions are reduced in the order they were poured, through passivations and
  /// activations asked for while they are poured.
  @Test func oneKeysActionsKeepTheirOrderThroughPassivations() async throws {
    let host = try memoryHost(clock: TestClock(), idleAfter: nil)
    var tasks: [PourTask] = []
    for amount in 1...200 {
      tasks.append(host.pour(.deposit(amount), to: "a"))
      if amount.isMultiple(of: 40) {
        // Idle, then passivated: the next pour activates it again.
        await host.finish("a")
        await host.passivate("a")
      } else if amount.isMultiple(of: 10) {
        // Passivated while busy: given up, or closing as pours come.
        _ = Task { await host.passivate("a") }
      }
    }
    for task in tasks { await task.finish() }
    await host.settle()
    let log = try await host.state(of: "a").log
    #expect(log == (1...200).map { "+\($0)" })
    #expect(host.counts.activations >= 5)
  }

  /// Issue 51: 64 OS threads pour into one new key at once: one activation, every pour reduced.
  @Test func concurrentFirstPoursFromManyThreadsShareOneActivation() async throws {
    for _ in 0..<scaled(20) {
      let host = try memoryHost(clock: TestClock())
      let start = DispatchSemaphore(value: 0)
      let finished = DispatchGroup()
      let tasks = Lock<[PourTask]>([])
      for _ in 0..<64 {
        finished.enter()
        Thread {
          start.wait()
          let task = host.pour(.deposit(1), to: "shared")
          tasks.withLock { $0.append(task) }
          finished.leave()
        }.start()
      }
      for _ in 0..<64 { start.signal() }
      await withCheckedContinuation { continuation in
        finished.notify(queue: .global()) { continuation.resume() }
      }
      for task in tasks.withLock({ $0 }) { await task.finish() }
      #expect(try await host.state(of: "shared").balance == 64)
      #expect(host.counts.activations == 1)
    }
  }

  /// A reminder fires at its deadline on the host's clock, activating its key if it was
  /// passivated; one cancelled before its time never fires.
  @Test func aReminderFiresAtItsDeadlineEvenForAPassivatedKey() async throws {
    let clock = TestClock()
    let host = try memoryHost(clock: clock, idleAfter: .seconds(10))
    let now = HostTime.controlled(by: clock).now()
    await host.pour(.expireAt(now.addingTimeInterval(100)), to: "a").finish()
    await host.pour(.expireAt(now.addingTimeInterval(100)), to: "b").finish()
    await host.pour(.keepOpen, to: "b").finish()
    #expect(host.counts.remindersPending == 1)
    await clock.advance(by: .seconds(30))
    await host.settle()
    #expect(host.counts.resident == 0)
    await clock.advance(by: .seconds(70))
    await host.settle()
    await host.finish("a")
    #expect(try await host.state(of: "a").expired)
    #expect(try await host.state(of: "b").expired == false)
    #expect(host.counts.remindersFired == 1)
    #expect(host.counts.remindersPending == 0)
  }

  /// An observed key stays resident; the stream gives its states as they change.
  @Test func anObservedKeyStaysResident() async throws {
    let clock = TestClock()
    let host = try memoryHost(clock: clock, idleAfter: .seconds(10))
    var balances = host.states(of: "a").makeAsyncIterator()
    #expect(await balances.next()?.balance == 0)
    host.pour(.deposit(3), to: "a")
    #expect(await balances.next()?.balance == 3)
    await clock.advance(by: .seconds(60))
    await host.settle()
    #expect(host.residentKeys == ["a"])
  }

  /// A key whose effect runs is not idle: it is not passivated until the effect ends.
  @Test func aKeyWithARunningEffectIsNotPassivated() async throws {
    let clock = TestClock()
    let host = try memoryHost(clock: clock, idleAfter: .seconds(10))
    let effects = TestClock()
    let busy = try StationHost<String, Account>(
      lifetime: HostLifetime(idleAfter: .seconds(10), time: .controlled(by: clock))
    ) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    } withDependencies: { _, values in
      values.clock = effects
    }
    busy.pour(.depositLater(5), to: "a")
    await clock.advance(by: .seconds(60))
    await busy.settle()
    #expect(busy.residentKeys == ["a"])
    await effects.advance(by: .seconds(1))
    await busy.finish("a")
    await clock.advance(by: .seconds(30))
    await busy.settle()
    #expect(busy.residentKeys.isEmpty)
    #expect(try await busy.state(of: "a").balance == 5)
    _ = host
  }
}
