import Dripper
import Synchronization

/// Where todo lists are kept: the feature's one dependency on the disk.
///
/// The REPL keeps lists in files (``disk``); tests give the feature ``memory(_:)`` and check its
/// saving and loading rules without touching a disk.
struct TodoFiles: Sendable {
  /// Whether a file (or a link to one) is at the path.
  var exists: @Sendable (_ path: String) -> Bool
  /// Writes the list at the path, replacing what is there.
  var save: @Sendable (_ document: Document, _ path: String) -> Result<Void, PersistenceError>
  /// Reads the list at the path.
  var load: @Sendable (_ path: String) -> Result<Document, PersistenceError>
  /// Which version of the file is at the path: another once anyone writes it.
  var stamp: @Sendable (_ path: String) -> FileStamp

  /// JSON files, written atomically (see ``Persistence``).
  static let disk = TodoFiles(
    exists: Persistence.exists, save: Persistence.save, load: Persistence.load(from:),
    stamp: Persistence.stamp(of:))

  /// Lists kept in `store`, by path.
  static func memory(_ store: MemoryFiles) -> TodoFiles {
    TodoFiles(
      exists: { path in store.documents.withLock { $0[path] != nil } },
      save: { document, path in
        store.documents.withLock { $0[path] = document }
        return .success(())
      },
      load: { path in
        guard let document = store.documents.withLock({ $0[path] }) else {
          return .failure(PersistenceError("no file at \(path)"))
        }
        return .success(document)
      },
      stamp: { path in
        FileStamp(store.documents.withLock { $0[path] }.map { "\($0)" } ?? "")
      })
  }
}

/// The files of ``TodoFiles/memory(_:)``: a test reads and seeds them.
final class MemoryFiles: Sendable {
  let documents: Mutex<[String: Document]>

  init(_ documents: [String: Document] = [:]) {
    self.documents = Mutex(documents)
  }
}

extension DependencyValues {
  /// Where the todo list is saved and loaded: files on disk unless a test says otherwise.
  var todoFiles: TodoFiles {
    get { self[TodoFilesKey.self] }
    set { self[TodoFilesKey.self] = newValue }
  }
}

/// No `testValue`: a test that saves or loads without giving its own files is told so.
private enum TodoFilesKey: DependencyKey {
  static let liveValue = TodoFiles.disk
}

/// Which version of a file is at a path, as a save compares it with the one the session last read
/// or wrote: empty when there is no file.
struct FileStamp: Equatable, Codable, Sendable {
  let identity: String

  init(_ identity: String) {
    self.identity = identity
  }

  /// No file.
  static let absent = FileStamp("")
}
