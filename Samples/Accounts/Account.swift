import Dripper
import Foundation

/// A bank account: the feature the service runs for each of its keys.
///
/// Opening an account deposits its opening balance and sets a reminder: a welcome bonus, paid a
/// delay the action carries after the account opens. The reminder lives in the account's state, so
/// it is paid even if the service was down when it fell due. The action carries the delay, not a
/// deadline: a retried request is the same action, which the host recognizes by its id.
struct Account: Dripper {
  struct State: Equatable, Sendable, Codable {
    var opens = 0
    var balance = 0
    var bonusPaid = false
  }

  enum Action: Equatable, Sendable, Codable {
    /// Opens the account, with a bonus due `bonusAfter` seconds later.
    case open(bonusAfter: Double)
    case deposit(Int)
    case payBonus
  }

  static let openingBalance = 100
  static let bonus = 10

  @Dependency(\.date) var date

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .open(let bonusAfter):
        state.opens += 1
        guard state.opens == 1 else { return .none }
        state.balance += Self.openingBalance
        return .remind(.payBonus, at: date.now.addingTimeInterval(bonusAfter), id: "bonus")
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
