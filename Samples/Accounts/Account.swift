import Dripper
import Foundation

/// A bank account: the feature the service runs for each of its keys.
///
/// Opening an account deposits its opening balance and sets a reminder: a welcome bonus, paid at
/// a deadline the action carries. The reminder lives in the account's state, so it is paid even
/// if the service was down when it fell due.
struct Account: Dripper {
  struct State: Equatable, Sendable, Codable {
    var opens = 0
    var balance = 0
    var bonusPaid = false
  }

  enum Action: Equatable, Sendable, Codable {
    /// Opens the account, with a bonus due at `bonusAt`.
    case open(bonusAt: Date)
    case deposit(Int)
    case payBonus
  }

  static let openingBalance = 100
  static let bonus = 10

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .open(let bonusAt):
        state.opens += 1
        guard state.opens == 1 else { return .none }
        state.balance += Self.openingBalance
        return .remind(.payBonus, at: bonusAt, id: "bonus")
      case .deposit(let amount):
        state.balance += amount
        return .none
      case .payBonus:
        guard !state.bonusPaid else { return .none }
        state.bonusPaid = true
        state.balance += Self.bonus
        return .none
      }
    }
  }
}
