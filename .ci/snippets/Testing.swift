// The feature the testing articles test: GettingStarted's counter. Compiled
// with their snippets by .ci/docs-snippets.sh.
import Dripper
import Foundation

struct Counter: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case increase, decrease, decreaseLater }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count += 1
        return .none
      case .decrease:
        state.count -= 1
        return .none
      case .decreaseLater:
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.decrease)
        }
      }
    }
  }
}


/// The hosted feature the Testing article tests: a checkout that times out unless it is paid.
struct Checkout: Dripper {
  struct State: Equatable, Sendable {
    var status = Status.open
    enum Status: Equatable, Sendable { case open, awaitingPayment, paid, cancelled }
  }

  enum Action: Equatable, Sendable, ReplyingAction {
    typealias Reply = Outcome
    case checkedOut(at: Date)
    case paid
    case paymentTimedOut
  }

  enum Outcome: Equatable, Sendable, Codable { case awaitingPayment, paid }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .checkedOut(let date):
        state.status = .awaitingPayment
        return .merge(.remind(.paymentTimedOut, at: date.addingTimeInterval(15 * 60), id: "payment"), .reply(.awaitingPayment))
      case .paid:
        state.status = .paid
        return .merge(.cancelReminder(id: "payment"), .reply(.paid))
      case .paymentTimedOut:
        state.status = .cancelled
        return .none
      }
    }
  }
}
