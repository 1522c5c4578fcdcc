import Dripper
import Foundation

/// A todo list built from small features: rows (`forEach`), an optional editor (`ifLet`), a filter,
/// a search that waits for typing to pause (a debounced, cancel-in-flight effect on the clock), and
/// undo and redo of the list.
struct Todos: Dripper {
  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Row.State> = []
    /// Which todos are shown: shared with the other Stations showing the list, and kept in a file
    /// next to it (see `Persistence.settings(nextTo:)`).
    @Shared(value: Filter.all) var filter
    /// The search as typed.
    var query = ""
    /// The search in force, once typing paused.
    var search = ""
    @PresentationState var editor: Editor.State?
    var history = History<IdentifiedArrayOf<Row.State>>(limit: 100)
    /// The files this session loaded or created: a save replaces no other unless forced.
    var knownFiles: Set<String> = []
    /// The version of each of them the session last read or wrote: a save refuses to replace a
    /// file another session wrote since, unless forced.
    var seenFiles: [String: FileStamp] = [:]
    /// The list as it was last saved or loaded: what leaving would lose is the difference.
    var savedDocument = Document(todos: [])
    /// What the last command that reports came to (see ``Outcome``); `nil` while it runs.
    var outcome: Outcome?

    /// The rows shown: through the filter and the search.
    var visible: [Row.State] {
      // The shared filter and the search read once, not once per row.
      let filter = self.filter
      let search = self.search.lowercased()
      return rows.filter { row in
        filter.includes(row) && (search.isEmpty || row.title.lowercased().contains(search))
      }
    }

    /// What is saved: the todos.
    var document: Document { Document(todos: Array(rows)) }

    /// Whether the list has changed since it was last saved or loaded.
    var hasUnsavedChanges: Bool { document != savedDocument }
  }

  enum Filter: String, CaseIterable, Equatable, Codable, Sendable {
    case all
    case active
    case done

    func includes(_ row: Row.State) -> Bool {
      switch self {
      case .all: true
      case .active: !row.isDone
      case .done: row.isDone
      }
    }
  }

  /// `Codable` for the journal (`--journal`, see ``Journaling``).
  enum Action: Equatable, Codable, Sendable {
    /// Adds a todo: the reducer makes its id and inserts it with `.insert`, so that a journal
    /// holds the id and a replay gives the same list (see `--journal`).
    case add(String)
    case insert(Row.State)
    case rows(IdentifiedAction<UUID, Row.Action>)
    case remove(UUID)
    case clearDone
    case setFilter(Filter)
    case queryChanged(String)
    case searchApplied(String)
    case edit(UUID)
    case editor(PresentationAction<Editor.Action>)
    case undo
    case redo
    // What the user asked for, which the feature may refuse: each ends with an ``Outcome``.
    /// Writes the list to the file at `path`; a file this session did not load or create is
    /// replaced only when `force` is set.
    case saveCommand(path: String, force: Bool)
    /// Replaces the list with the one in the file at `path`.
    case loadCommand(path: String)
    /// Loads the file at `path` if there is one; otherwise starts empty, with `path` as the list's
    /// file.
    case openCommand(path: String)
    case undoCommand
    case redoCommand
    /// An action for the editor, refused when nothing is being edited.
    case editorCommand(Editor.Action)
    /// What a file command's effect found.
    case fileLoaded(Document, path: String)
    /// A file command read or wrote `document` at `path`, which is now at version `stamp`.
    case fileSeen(path: String, stamp: FileStamp, document: Document)
    case finished(Outcome)
  }

  /// How long the search waits for typing to pause.
  static let searchDelay = Duration.milliseconds(300)

  struct SearchID: Hashable, Sendable {}

  @Dependency(\.uuid) var uuid
  @Dependency(\.clock) var clock
  @Dependency(\.todoFiles) var files

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let title):
        return .send(.insert(Row.State(id: uuid(), title: title)))
      case .insert(let row):
        state.rows.append(row)
        return .none
      case .rows:
        return .none
      case .remove(let id):
        state.rows.remove(id: id)
        if state.editor?.rowID == id { state.editor = nil }
        return .none
      case .clearDone:
        state.rows.removeAll { $0.isDone }
        return .none
      case .setFilter(let filter):
        state.$filter.withLock { $0 = filter }
        return .none
      case .queryChanged(let query):
        state.query = query
        return .send(.searchApplied(query)).debounce(id: SearchID(), for: Self.searchDelay, clock: clock)
      case .searchApplied(let query):
        state.search = query
        return .none
      case .edit(let id):
        guard let row = state.rows[id: id] else { return .none }
        state.editor = Editor.State(rowID: id, draft: row.title)
        return .none
      case .editor(.presented(.commit)):
        if let editor = state.editor { state.rows[id: editor.rowID]?.title = editor.draft }
        state.editor = nil
        return .none
      case .editor:
        return .none
      case .undo, .redo:
        state.editor = nil
        return .none
      case .saveCommand, .loadCommand, .openCommand, .undoCommand, .redoCommand, .editorCommand,
        .fileLoaded, .fileSeen, .finished:
        return command(&state, action)
      }
    }
    .ifLet(\.$editor, action: .editor) { Editor() }
    .forEach(\.rows, action: .rows) { Row() }
    .undoable(\.rows, history: \.history, undo: .undo, redo: .redo)
  }
}

extension CasePath<Todos.Action, PresentationAction<Editor.Action>> {
  static var editor: Self { Self(Todos.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}

extension CasePath<Todos.Action, IdentifiedAction<UUID, Row.Action>> {
  static var rows: Self { Self(Todos.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}

extension CasePath<Todos.Action, Void> {
  static var undo: Self { Self({ Todos.Action.undo }, extract: { if case .undo = $0 { () } else { nil } }) }
  static var redo: Self { Self({ Todos.Action.redo }, extract: { if case .redo = $0 { () } else { nil } }) }
}

/// The saved form of a todo list.
struct Document: Equatable, Codable, Sendable {
  /// The format's version: a file of a later version is refused rather than misread.
  var version = 1
  var todos: [Row.State]
}
