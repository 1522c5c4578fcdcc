import Dripper
import Foundation

/// A bank account: the feature the host tests run for many keys.
struct Account: Dripper {
  struct State: Equatable, Sendable, Codable {
    var balance = 0
    var expired = false
    var log: [String] = []
  }

  enum Action: Equatable, Sendable, Codable {
    case deposit(Int)
    case withdraw(Int)
    /// Deposits after a second of the account's clock: an effect that keeps the key busy.
    case depositLater(Int)
    case expireAt(Date)
    case keepOpen
    case expire
  }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let amount):
        state.balance += amount
        state.log.append("+\(amount)")
        return .none
      case .withdraw(let amount):
        state.balance -= amount
        state.log.append("-\(amount)")
        return .none
      case .depositLater(let amount):
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.deposit(amount))
        }
      case .expireAt(let date):
        return .remind(.expire, at: date, id: "expiry")
      case .keepOpen:
        return .cancelReminder(id: "expiry")
      case .expire:
        state.expired = true
        return .none
      }
    }
  }
}
