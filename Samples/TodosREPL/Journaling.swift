import Dripper
import Foundation

/// `--journal DIR`: the list kept in a durable journal (Dripper's `DurableJournal`) instead of a
/// file that `save` writes. Every action the Station reduces is synced before the next command is
/// read, so nothing typed is lost to a crash, a `kill -9` or a closed terminal, and there is
/// nothing to save; `save PATH` still exports the list as JSON.
///
/// An action is one line of JSON (a Codable mirror of `Todos.Action`, since a binding's key path
/// is not Codable). A snapshot holds the list and what the session knows of its files; the undo
/// history, the search and the editor are not kept across restarts.
enum Journaling {
  /// The durable journal in `directory`, whose snapshots make a state with `filter`.
  static func durable(
    at directory: String, filter: SharedValue<Todos.Filter>, snapshotEvery: Int = 1_000
  ) -> DurableJournal<Todos.State, Todos.Action> {
    DurableJournal(
      directory: directory, durability: .everyAction, snapshotEvery: snapshotEvery, hashing: listHash,
      encodeAction: encode, decodeAction: decode,
      encodeState: { state in
        let snapshot = Snapshot(
          todos: Array(state.rows), knownFiles: state.knownFiles.sorted(),
          seenFiles: state.seenFiles.mapValues(\.identity), savedDocument: state.savedDocument)
        return String(decoding: try JSONEncoder.journal.encode(snapshot), as: UTF8.self)
      },
      decodeState: { text in
        let snapshot = try JSONDecoder().decode(Snapshot.self, from: Data(text.utf8))
        var state = Todos.State(filter: Shared(filter))
        state.rows = IdentifiedArray(snapshot.todos)
        state.knownFiles = Set(snapshot.knownFiles)
        state.seenFiles = snapshot.seenFiles.mapValues(FileStamp.init)
        state.savedDocument = snapshot.savedDocument
        return state
      })
  }

  /// The hash each entry keeps: of the list alone. The filter is a shared value read as it is
  /// now, and the history and the search are not in snapshots, so a hash of the whole state
  /// would differ after a restart without anything being wrong. Taken field by field (64-bit
  /// FNV-1a): `StateHash.dump` renders the whole list as text at each action, several times
  /// the cost.
  static let listHash = StateHash<Todos.State> { state in
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func add(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01b3
    }
    func add(_ word: UInt64) {
      for shift in stride(from: 0, to: 64, by: 8) { add(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }
    for row in state.rows {
      add(row.id.high)
      add(row.id.low)
      add(UInt8(row.isDone ? 1 : 0))
      for byte in row.title.utf8 { add(byte) }
      add(UInt8(0xFF))  // not UTF-8: ends the title
    }
    return hash
  }

  /// What a snapshot keeps.
  struct Snapshot: Codable {
    var todos: [Row.State]
    var knownFiles: [String]
    var seenFiles: [String: String]
    var savedDocument: Document
  }

  static func encode(_ action: Todos.Action) -> String {
    // Every case of the mirror encodes: JSONEncoder fails only on values JSON cannot hold.
    let data = (try? JSONEncoder.journal.encode(JournaledAction(action))) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  static func decode(_ text: String) throws -> Todos.Action {
    try JSONDecoder().decode(JournaledAction.self, from: Data(text.utf8)).action
  }
}

extension JSONEncoder {
  /// One line, the same bytes for the same value.
  fileprivate static var journal: JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }
}

/// `Todos.Action` as JSON can hold it.
enum JournaledAction: Codable, Equatable {
  case add(String)
  case insert(Row.State)
  case toggle(UniqueID)
  case rename(UniqueID, String)
  case remove(UniqueID)
  case clearDone
  case setFilter(Todos.Filter)
  case queryChanged(String)
  case searchApplied(String)
  case edit(UniqueID)
  case editorDraft(String)
  case editorCommit
  case editorDiscard
  case editorDismiss
  case undo
  case redo
  case saveCommand(path: String, force: Bool)
  case loadCommand(path: String)
  case openCommand(path: String)
  case undoCommand
  case redoCommand
  case editorCommandDraft(String)
  case editorCommandCommit
  case editorCommandDiscard
  case fileLoaded(Document, path: String)
  case fileSeen(path: String, stamp: String, document: Document)
  case finished(Todos.Outcome)

  init(_ action: Todos.Action) {
    switch action {
    case .add(let title): self = .add(title)
    case .insert(let row): self = .insert(row)
    case .rows(.element(let id, .toggle)): self = .toggle(id)
    case .rows(.element(let id, .rename(let title))): self = .rename(id, title)
    case .remove(let id): self = .remove(id)
    case .clearDone: self = .clearDone
    case .setFilter(let filter): self = .setFilter(filter)
    case .queryChanged(let query): self = .queryChanged(query)
    case .searchApplied(let query): self = .searchApplied(query)
    case .edit(let id): self = .edit(id)
    case .editor(.presented(let action)):
      switch Self.editor(action) {
      case .draft(let draft): self = .editorDraft(draft)
      case .commit: self = .editorCommit
      case .discard: self = .editorDiscard
      }
    case .editor(.dismiss): self = .editorDismiss
    case .undo: self = .undo
    case .redo: self = .redo
    case .saveCommand(let path, let force): self = .saveCommand(path: path, force: force)
    case .loadCommand(let path): self = .loadCommand(path: path)
    case .openCommand(let path): self = .openCommand(path: path)
    case .undoCommand: self = .undoCommand
    case .redoCommand: self = .redoCommand
    case .editorCommand(let action):
      switch Self.editor(action) {
      case .draft(let draft): self = .editorCommandDraft(draft)
      case .commit: self = .editorCommandCommit
      case .discard: self = .editorCommandDiscard
      }
    case .fileLoaded(let document, let path): self = .fileLoaded(document, path: path)
    case .fileSeen(let path, let stamp, let document):
      self = .fileSeen(path: path, stamp: stamp.identity, document: document)
    case .finished(let outcome): self = .finished(outcome)
    }
  }

  var action: Todos.Action {
    switch self {
    case .add(let title): .add(title)
    case .insert(let row): .insert(row)
    case .toggle(let id): .rows(.element(id: id, action: .toggle))
    case .rename(let id, let title): .rows(.element(id: id, action: .rename(title)))
    case .remove(let id): .remove(id)
    case .clearDone: .clearDone
    case .setFilter(let filter): .setFilter(filter)
    case .queryChanged(let query): .queryChanged(query)
    case .searchApplied(let query): .searchApplied(query)
    case .edit(let id): .edit(id)
    case .editorDraft(let draft): .editor(.presented(.set(\.draft, draft)))
    case .editorCommit: .editor(.presented(.commit))
    case .editorDiscard: .editor(.presented(.discard))
    case .editorDismiss: .editor(.dismiss)
    case .undo: .undo
    case .redo: .redo
    case .saveCommand(let path, let force): .saveCommand(path: path, force: force)
    case .loadCommand(let path): .loadCommand(path: path)
    case .openCommand(let path): .openCommand(path: path)
    case .undoCommand: .undoCommand
    case .redoCommand: .redoCommand
    case .editorCommandDraft(let draft): .editorCommand(.set(\.draft, draft))
    case .editorCommandCommit: .editorCommand(.commit)
    case .editorCommandDiscard: .editorCommand(.discard)
    case .fileLoaded(let document, let path): .fileLoaded(document, path: path)
    case .fileSeen(let path, let stamp, let document):
      .fileSeen(path: path, stamp: FileStamp(stamp), document: document)
    case .finished(let outcome): .finished(outcome)
    }
  }

  private enum EditorStep {
    case draft(String)
    case commit
    case discard
  }

  /// The editor's actions: its only binding is the draft's.
  private static func editor(_ action: Editor.Action) -> EditorStep {
    switch action {
    case .binding(let binding): .draft(binding.value(at: \.draft) ?? "")
    case .commit: .commit
    case .discard: .discard
    }
  }
}
