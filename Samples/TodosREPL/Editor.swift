import Dripper

/// The editor of a todo's title, presented by the list: a draft the list saves on `commit`, or
/// that the editor drops on `discard` by dismissing itself.
struct Editor: Dripper {
  struct State: Equatable, Sendable {
    let rowID: UniqueID
    var draft: String
  }

  enum Action: Equatable, Sendable {
    case setDraft(String)
    case commit
    case discard
  }

  @Dependency(\.dismiss) var dismiss

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .setDraft(let draft):
        state.draft = draft
        return .none
      case .commit:
        // The list saves the draft and closes the editor: it sees this action after the editor.
        return .none
      case .discard:
        return .run { _ in await dismiss() }
      }
    }
  }
}
