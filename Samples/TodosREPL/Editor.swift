import Dripper
import Foundation

/// The editor of a todo's title, presented by the list: a draft the list saves on `commit`, or
/// that the editor drops on `discard` by dismissing itself.
struct Editor: Dripper {
  struct State: Equatable, Sendable {
    let rowID: UUID
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

/// For the journal (`--journal`): a binding's key path cannot be encoded, and the editor's only
/// binding is the draft's, so it is written as the draft.
extension Editor.Action: Codable {
  private enum CodingKeys: String, CodingKey {
    case draft
    case commit
    case discard
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let draft = try container.decodeIfPresent(String.self, forKey: .draft) {
      self = .set(\.draft, draft)
    } else if container.contains(.commit) {
      self = .commit
    } else if container.contains(.discard) {
      self = .discard
    } else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "not an editor action"))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .binding(let binding): try container.encode(binding.value(at: \.draft) ?? "", forKey: .draft)
    case .commit: try container.encode(true, forKey: .commit)
    case .discard: try container.encode(true, forKey: .discard)
    }
  }
}
