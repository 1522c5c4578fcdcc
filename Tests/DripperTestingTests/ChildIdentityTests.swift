import DripperTesting
import Testing

/// An editor that loads its document after a second.
struct DocumentEditor: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var loaded: Int?
  }
  enum Action: Equatable, Sendable {
    case load
    case loaded(Int)
  }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .load:
        return .run { [id = state.id] pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.loaded(id))
        }
      case .loaded(let id):
        state.loaded = id
        return .none
      }
    }
  }
}

/// A parent that opens one document at a time, as an optional child or as a case of its state.
struct Documents: Dripper {
  struct State: Equatable, Sendable {
    var editor: DocumentEditor.State?
    var mode = Mode.browsing
  }
  enum Mode: Equatable, Sendable {
    case browsing
    case editing(DocumentEditor.State)
  }
  enum Action: Equatable, Sendable {
    case open(Int)
    case edit(Int)
    case editor(DocumentEditor.Action)
    case editing(DocumentEditor.Action)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .open(let id):
        state.editor = DocumentEditor.State(id: id)
        return .none
      case .edit(let id):
        state.mode = .editing(DocumentEditor.State(id: id))
        return .none
      case .editor, .editing:
        return .none
      }
    }
    .ifLet(\.editor, action: .editor) { DocumentEditor() }
    .ifCaseLet(.editing, action: .editing) { DocumentEditor() }
  }
}

extension CasePath<Documents.Action, DocumentEditor.Action> {
  static var editor: Self { Self(Documents.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
  static var editing: Self {
    Self(Documents.Action.editing) { if case .editing(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Documents.State, DocumentEditor.State> {
  /// The editing case of the mode, seen from the whole state.
  static var editing: Self {
    Self(
      { Documents.State(editor: nil, mode: .editing($0)) },
      extract: { if case .editing(let editor) = $0.mode { editor } else { nil } })
  }
}

/// A child replaced by one of another id is a new child: the old one's effects are cancelled, and
/// its response never reaches the new one (issue 16). Both failed before.
@Suite struct ChildIdentityTests {
  func documents() -> (TestStation<Documents.State, Documents.Action>, TestClock) {
    let clock = TestClock()
    let station = TestStation(initialState: Documents.State()) {
      Documents()
    } withDependencies: {
      $0.clock = clock
    }
    return (station, clock)
  }

  @Test func replacingAnOptionalChildCancelsTheOldOnesEffects() async {
    let (station, clock) = documents()
    await station.pour(.open(1)) { $0.editor = DocumentEditor.State(id: 1) }
    await station.pour(.editor(.load))
    await station.pour(.open(2)) { $0.editor = DocumentEditor.State(id: 2) }
    await clock.advance(by: .seconds(1))
    await station.finish()  // Nothing received: document 1's response died with its editor.
  }

  @Test func theNewChildsOwnEffectsRunAsUsual() async {
    let (station, clock) = documents()
    await station.pour(.open(1)) { $0.editor = DocumentEditor.State(id: 1) }
    await station.pour(.editor(.load))
    await station.pour(.open(2)) { $0.editor = DocumentEditor.State(id: 2) }
    await station.pour(.editor(.load))
    await clock.advance(by: .seconds(1))
    await station.receive(.editor(.loaded(2))) { $0.editor?.loaded = 2 }
    await station.finish()
  }

  @Test func theSameChildChangingIsNotReplaced() async {
    let (station, clock) = documents()
    await station.pour(.open(1)) { $0.editor = DocumentEditor.State(id: 1) }
    await station.pour(.editor(.load))
    await station.pour(.open(1))  // the same id: the same child, whose load goes on
    await clock.advance(by: .seconds(1))
    await station.receive(.editor(.loaded(1))) { $0.editor?.loaded = 1 }
    await station.finish()
  }

  @Test func replacingAChildInACaseCancelsTheOldOnesEffects() async {
    let (station, clock) = documents()
    await station.pour(.edit(1)) { $0.mode = .editing(DocumentEditor.State(id: 1)) }
    await station.pour(.editing(.load))
    await station.pour(.edit(2)) { $0.mode = .editing(DocumentEditor.State(id: 2)) }
    await clock.advance(by: .seconds(1))
    await station.finish()
  }
}
