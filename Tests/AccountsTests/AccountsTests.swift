import Dripper
import Foundation
import Testing

@testable import Accounts

@Suite struct AccountsTests {
  @Test func anAccountOpensOnceAndSetsItsBonus() {
    var state = Account.State()
    _ = Account().reduce(into: &state, action: .open(bonusAfter: 3600))
    _ = Account().reduce(into: &state, action: .open(bonusAfter: 3600))
    #expect(state == Account.State(opens: 2, balance: 100, bonusPaid: false))
    _ = Account().reduce(into: &state, action: .payBonus)
    _ = Account().reduce(into: &state, action: .payBonus)
    #expect(state.balance == 110)
  }

  /// A run killed with -9 opens the same accounts again under the same request ids: the retried
  /// request is the same action, so it is recognized and applied once. (Before, the action carried
  /// a deadline computed from the time of each run, the retry was another action, and the host
  /// refused it as a request id reused: CI's resumed run failed on every account it retried.)
  @Test func anOpenRetriedByALaterRunIsAppliedOnce() async throws {
    let folder = NSTemporaryDirectory() + "accounts-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for run in 0..<2 {
      let host = try StationHost<String, Account>(storage: .folder(folder, codec: .json)) { _ in
        Account.State()
      } dripper: { _ in
        Account()
      }
      let receipt = try await host.pour(.open(bonusAfter: 3600), to: "acct-1", id: "open")
      #expect(receipt.duplicate == (run == 1))
      #expect(try await host.state(of: "acct-1") == Account.State(opens: 1, balance: 100))
      await host.close()
    }
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

  /// The mark written last is the highest the workers reached, however they interleave (a lower
  /// one written after a higher one made a run resume from 184 of 200).
  @Test func theWatermarkFileEndsAtTheHighestMark() async throws {
    let path = NSTemporaryDirectory() + "watermark-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let chunks = 400
    let mark = Watermark(path: path)
    await withTaskGroup(of: Void.self) { group in
      for first in (0..<chunks).shuffled() {
        group.addTask { mark.completed(first * 5, count: 5) }
      }
    }
    #expect(mark.value == chunks * 5)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == String(chunks * 5))
  }
}
