import Observation
import Synchronization
import Testing

@testable import Dripper

/// A feature with a counter, a list, and an event.
struct Board: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var items: [Int] = []
    var label = ""
  }

  struct Toast: Equatable, Sendable {
    let text: String
  }

  enum Action: Sendable {
    case increase
    case add(Int)
    case rename(String)
    case toast(String)
    case nothing
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase: state.count += 1
      case .add(let item): state.items.append(item)
      case .rename(let label): state.label = label
      case .toast(let text): return .emit(Toast(text: text))
      case .nothing: break
      }
      return .none
    }
  }
}
