import Dripper
import Foundation
import Tracing

/// A purse that answers its requests, and whose `.audit` starts an effect reporting the span it
/// runs in.
struct Purse: Dripper {
  struct State: Equatable, Sendable, Codable { var balance = 0 }
  enum Action: Equatable, Sendable, Codable, ReplyingAction {
    typealias Reply = PurseReply
    case deposit(Int)
    case withdraw(Int)
    case audit
    case remindAt(Date)
    case reminded
  }
  /// The span ids the audit effects ran in ("none" outside a span).
  let spans: LockIsolated<[String]>

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let amount):
        state.balance += amount
        return .reply(.balance(state.balance))
      case .withdraw(let amount):
        guard state.balance >= amount else { return .reply(.refused("would overdraw")) }
        state.balance -= amount
        return .reply(.balance(state.balance))
      case .audit:
        return .run { [spans] _ in
          let span = ServiceContext.current?.inMemorySpanContext?.spanID ?? "none"
          spans.withValue { $0.append(span) }
        }
      case .remindAt(let date):
        return .remind(.reminded, at: date, id: "r")
      case .reminded:
        state.balance += 1
        return .none
      }
    }
  }
}

enum PurseReply: Equatable, Sendable, Codable {
  case balance(Int)
  case refused(String)
}

/// A folder of its own, removed when the test ends.
func scratchFolder() -> String {
  NSTemporaryDirectory() + "dripper-service-\(UUID().uuidString)"
}
