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
}
