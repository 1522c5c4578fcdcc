import Dripper

/// The editor of a todo's title: a draft, committed or discarded by its parent.
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

  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .setDraft(let draft) = action { state.draft = draft }
      // Committing and discarding close the editor: its parent does that, having seen the draft.
      return .none
    }
  }
}
