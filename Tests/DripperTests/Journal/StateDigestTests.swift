import Foundation
import Testing

@testable import Dripper

/// The digest a host records of a key's state: equal values alike, in any process, whatever order
/// a set or a dictionary keeps; different values apart.
@Suite struct StateDigestTests {
  struct Account: Equatable {
    var owner = "alice"
    var balance = 10
    var tags: Set<String> = []
    var limits: [String: Int] = [:]
    var history: [Entry] = []
    var note: String?
  }

  enum Entry: Equatable {
    case deposit(Int)
    case withdrawal(Int, reason: String)
    case closed
  }

  @Test func equalValuesDigestAlikeWhateverTheirSetsOrder() {
    var first = Account()
    var second = Account()
    for tag in (0..<100).map(String.init) { first.tags.insert(tag) }
    for tag in (0..<100).reversed().map(String.init) { second.tags.insert(tag) }
    for key in 0..<50 { first.limits["\(key)"] = key }
    for key in (0..<50).reversed() { second.limits["\(key)"] = key }
    #expect(StateDigest.of(first) == StateDigest.of(second))
  }

  @Test func differentValuesDigestApart() {
    let base = Account(history: [.deposit(1), .withdrawal(1, reason: "x"), .closed])
    var variants: [Account] = []
    for change in 0..<7 {
      var account = base
      switch change {
      case 0: account.owner = "bob"
      case 1: account.balance = 11
      case 2: account.tags = ["a"]
      case 3: account.limits = ["a": 1]
      case 4: account.history = [.deposit(1), .withdrawal(1, reason: "y"), .closed]
      case 5: account.history = [.withdrawal(1, reason: "x"), .deposit(1), .closed]
      default: account.note = ""
      }
      variants.append(account)
    }
    let digests = Set(([base] + variants).map { StateDigest.of($0) })
    #expect(digests.count == variants.count + 1)
  }

  /// The same in every process: a value's digest does not depend on this process's hashing seed
  /// (pinned here, as a journal written by one process is checked by another).
  @Test func aDigestIsPinned() {
    #expect(StateDigest.of(Account(tags: ["b", "a"], limits: ["x": 1])) == 0xf596_13f8_57c7_afaf)
  }
}
