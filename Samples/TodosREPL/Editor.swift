import Dripper

/// The editor of a todo's title, presented by the list: a draft the list saves on `commit`, or
/// that the editor drops on `discard` by dismissing itself.
struct Editor: Dripper {
  struct State: Equatable, Sendable {
    let rowID: UniqueID
    var draft: String
  }

  /// `text TITLE` sets the draft with a binding (`.set(\.draft, title)`): the field a form would
  /// bind, without an action of its own.
  enum Action: BindableAction, Equatable {
    case binding(BindingAction<State>)
    case commit
    case discard

    var binding: BindingAction<State>? {
      switch self {
      case .binding(let action): action
      default: nil
      }
    }
  }

  @Dependency(\.dismiss) var dismiss

  var body: some DripperOf<Self> {
    BindingDripper()
    Drip { _, action in
      switch action {
      case .binding:
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
