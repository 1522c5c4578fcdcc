import Dripper
import Foundation
import Testing

@testable import Accounts

@Suite struct AccountsTests {
  @Test func anAccountOpensOnceAndSetsItsBonus() {
    var state = Account.State()
    let bonusAt = Date(timeIntervalSince1970: 1_800_000_000)
    _ = Account().reduce(into: &state, action: .open(bonusAt: bonusAt))
    _ = Account().reduce(into: &state, action: .open(bonusAt: bonusAt))
    #expect(state == Account.State(opens: 2, balance: 100, bonusPaid: false))
    _ = Account().reduce(into: &state, action: .payBonus)
    _ = Account().reduce(into: &state, action: .payBonus)
    #expect(state.balance == 110)
  }

  @Test func badFlagsAreOneLine() {
    #expect(
      Options.parse(["--accounts", "x", "--data", "d"])
        == .failure(OptionError("'--accounts' needs a whole number from 0 to 100000000, not 'x'")))
    #expect(Options.parse(["--accounts", "5"]) == .failure(OptionError("'--data DIR' is needed")))
    #expect(Options.parse(["--frobnicate"]) == .failure(OptionError("unknown option '--frobnicate'")))
    #expect(
      Options.parse(["--data", "d", "--bonus-after", "-1"])
        == .failure(OptionError("'--bonus-after' needs a number of seconds from 0 to 86400")))
  }
}
