import Dripper
import Foundation

/// One todo: a row of the list.
struct Row: Dripper {
  struct State: Equatable, Identifiable, Codable, Sendable {
    let id: UUID
    var title: String
    var isDone = false
  }

  enum Action: Equatable, Codable, Sendable {
    case toggle
    case rename(String)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .toggle: state.isDone.toggle()
      case .rename(let title): state.title = title
      }
      return .none
    }
  }
}
