import Dripper
import Foundation

/// `--journal DIR`: the list kept in a durable journal (Dripper's `DurableJournal`) instead of a
/// file that `save` writes. Every action the Station reduces is synced before the next command is
/// read, so nothing typed is lost to a crash, a `kill -9` or a closed terminal, and there is
/// nothing to save; `save PATH` still exports the list as JSON.
///
/// An action is one line of JSON: `Todos.Action` is `Codable`, the editor's binding written as
/// its draft. A snapshot holds the list and what the session knows of its files; the undo
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
          seenFiles: state.seenFiles, savedDocument: state.savedDocument)
        return String(decoding: try JSONEncoder.journal.encode(snapshot), as: UTF8.self)
      },
      decodeState: { text in
        let snapshot = try JSONDecoder().decode(Snapshot.self, from: Data(text.utf8))
        var state = Todos.State(filter: Shared(filter))
        state.rows = IdentifiedArray(snapshot.todos)
        state.knownFiles = Set(snapshot.knownFiles)
        state.seenFiles = snapshot.seenFiles
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
      // The id's sixteen bytes as two big-endian words, as entries written before ids were
      // Foundation's hashed them: old journals keep their hashes.
      withUnsafeBytes(of: row.id.uuid) { bytes in
        add(bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
        add(bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) })
      }
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
    var seenFiles: [String: FileStamp]
    var savedDocument: Document
  }

  static func encode(_ action: Todos.Action) -> String {
    // Every action encodes: JSONEncoder fails only on values JSON cannot hold (a NaN).
    let data = (try? JSONEncoder.journal.encode(action)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  static func decode(_ text: String) throws -> Todos.Action {
    try JSONDecoder().decode(Todos.Action.self, from: Data(text.utf8))
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
