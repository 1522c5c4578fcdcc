import Dripper
import Foundation
import REPLSupport

/// Saving and loading a todo list as JSON.
enum Persistence {
  /// `~/.todos.json`; an error where `HOME` is not set (the current directory is no place to
  /// write a list the user did not name).
  static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<
    String, PersistenceError
  > {
    guard let home = environment["HOME"], !home.isEmpty else {
      return .failure(
        PersistenceError(
          "HOME is not set, so there is no default file: give a path (save PATH), or start with --file PATH"))
    }
    return .success((home as NSString).appendingPathComponent(".todos.json"))
  }

  /// The settings of the list at `path`, shared by the Stations that show it and kept in a file
  /// beside it (`todos.json` → `todos.settings.json`); in memory only when there is no list file.
  static func settings(nextTo path: String?) -> SharedValue<Todos.Filter> {
    guard let path else { return SharedValue(.all) }
    let file = (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".settings.json"
    return SharedValue(
      .all,
      persistence: .file(
        at: file, encode: { Array(try JSONEncoder().encode($0)) },
        decode: { try JSONDecoder().decode(Todos.Filter.self, from: Data($0)) }))
  }

  /// Which version of the file is at `path`: its inode, size and modification time, which a write
  /// by anyone changes (a save renames a new file over the old one).
  static func stamp(of path: String) -> FileStamp {
    var status = stat()
    guard stat(path, &status) == 0 else { return .absent }
    #if canImport(Darwin)
      let modified = status.st_mtimespec
    #else
      let modified = status.st_mtim
    #endif
    return FileStamp("\(status.st_ino)-\(status.st_size)-\(modified.tv_sec).\(modified.tv_nsec)")
  }

  /// Whether a file (or a link to one) is at `path`.
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// Writes the document atomically, through a symbolic link to its target (``AtomicFile``):
  /// a crash during the write never leaves a half-written file. Errors name the cause the system
  /// gave for the step that failed.
  static func save(_ document: Document, to path: String) -> Result<Void, PersistenceError> {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data: Data
    do {
      data = try encoder.encode(document)
    } catch {
      return .failure(PersistenceError("cannot encode the list: \(error)"))
    }
    if let failure = AtomicFile.replace(at: path, with: [UInt8](data)) {
      return .failure(PersistenceError("cannot write \(path.shownInMessage(limit: 100)): \(failure.reason)"))
    }
    return .success(())
  }

  /// Reads a document, or explains in one line why it cannot, with the cause the system gave.
  static func load(from path: String) -> Result<Document, PersistenceError> {
    switch AtomicFile.contents(at: path) {
    case .success(nil):
      return .failure(PersistenceError("no file at \(path.shownInMessage(limit: 100))"))
    case .failure(let failure) where failure.refusal != nil:
      // "it is a directory", "it is not a regular file (…)": said of the path itself.
      let reason = failure.reason.hasPrefix("it ") ? String(failure.reason.dropFirst(3)) : failure.reason
      return .failure(PersistenceError("\(path.shownInMessage(limit: 100)) \(reason)"))
    case .failure(let failure):
      return .failure(PersistenceError("cannot read \(path.shownInMessage(limit: 100)): \(failure.reason)"))
    case .success(let bytes?):
      return decode(Data(bytes), from: path)
    }
  }

  /// Reads a document from the bytes of the file at `path`, or explains in one line why they are
  /// not one.
  static func decode(_ data: Data, from path: String) -> Result<Document, PersistenceError> {
    let document: Document
    do {
      document = try JSONDecoder().decode(Document.self, from: data)
    } catch let error as DecodingError {
      return .failure(
        PersistenceError("\(path.shownInMessage(limit: 100)) is not a todo list: \(error.oneLine)"))
    } catch {
      return .failure(PersistenceError("\(path.shownInMessage(limit: 100)) is not a todo list: \(error)"))
    }
    guard document.version == 1 else {
      return .failure(
        PersistenceError(
          "\(path.shownInMessage(limit: 100)) is a todo list of version \(document.version); this program reads version 1"
        ))
    }
    guard Set(document.todos.map(\.id)).count == document.todos.count else {
      return .failure(
        PersistenceError("\(path.shownInMessage(limit: 100)) is not a todo list: two todos share an id"))
    }
    return .success(document)
  }
}

/// Why a list could not be saved or loaded, in one line.
struct PersistenceError: Error, Equatable, Codable, CustomStringConvertible {
  let message: String

  init(_ message: String) { self.message = message }

  var description: String { message }
}

extension DecodingError {
  /// The error in one line: what was wrong, and where.
  fileprivate var oneLine: String {
    func path(_ context: Context) -> String {
      let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
        separator: ".")
      return path.isEmpty ? "" : " at \(path)"
    }
    switch self {
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty ? "the file is not valid JSON" : "bad value\(path(context))"
    case .keyNotFound(let key, let context): return "missing '\(key.stringValue)'\(path(context))"
    case .typeMismatch(_, let context): return "wrong type\(path(context))"
    case .valueNotFound(_, let context): return "missing value\(path(context))"
    @unknown default: return "unreadable"
    }
  }
}
