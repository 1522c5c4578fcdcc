import Dripper
import DripperTesting
import Foundation
import Testing
import WalletFeature

@Suite struct WalletTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func aWithdrawalThatWouldOverdrawIsRefused() async {
    let station = TestStation(initialState: Wallet.State()) { Wallet() }
    await station.pour(.deposit(cents: 500)) {
      $0.balance = 500
      $0.deposits = 1
      $0.entries = [Wallet.Entry(kind: "deposit", amount: 500)]
    }
    await station.pour(.withdraw(cents: 501))
    await station.pour(.withdraw(cents: 200)) {
      $0.balance = 300
      $0.entries.append(Wallet.Entry(kind: "withdraw", amount: 200))
    }
    #expect(
      station.replies == [
        .accepted(WalletSummary(balance: 500, available: 500)), .refused("would overdraw: 500 available"),
        .accepted(WalletSummary(balance: 300, available: 300)),
      ])
  }

  /// A hold makes its cents unavailable until its reminder expires it, at its deadline.
  @Test func aHoldExpiresByItsReminder() async {
    let clock = TestClock()
    var state = Wallet.State()
    state.balance = 100
    let station = TestStation(initialState: state) {
      Wallet()
    } withDependencies: {
      $0.clock = clock
      $0.date = .constant(start)
    }
    await station.pour(.hold(cents: 80, seconds: 60)) {
      $0.holds = [1: 80]
      $0.nextHold = 2
      $0.entries = [Wallet.Entry(kind: "hold", amount: 80)]
    }
    await station.pour(.withdraw(cents: 30))
    #expect(station.replies.last == .refused("would overdraw: 20 available"))
    await clock.advance(by: .seconds(59))
    await clock.advance(by: .seconds(1))
    await station.receive(.expire(hold: 1)) {
      $0.holds = [:]
      $0.entries.append(Wallet.Entry(kind: "release", amount: 80))
    }
    await station.pour(.withdraw(cents: 30)) {
      $0.balance = 70
      $0.entries.append(Wallet.Entry(kind: "withdraw", amount: 30))
    }
  }

  @Test func aWalletKeepsItsLastEntries() {
    var state = Wallet.State()
    for cents in 1...25 { _ = Wallet().reduce(into: &state, action: .deposit(cents: cents)) }
    #expect(state.entries.map(\.amount) == Array(16...25))
    #expect(state.deposits == 25)
  }
}
