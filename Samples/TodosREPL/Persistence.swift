import Foundation
import REPLSupport

/// Saving and loading a todo list as JSON.
enum Persistence {
  /// `~/.todos.json`, or `.todos.json` where there is no home directory.
  static var defaultPath: String {
    let home = ProcessInfo.processInfo.environment["HOME"] ?? FileManager.default.currentDirectoryPath
    return (home as NSString).appendingPathComponent(".todos.json")
  }

  /// Writes the document atomically: to a temporary file beside `path`, then renamed over it, so
  /// that a crash during the write never leaves a half-written file.
  static func save(_ document: Document, to path: String) -> Result<Void, PersistenceError> {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data: Data
    do {
      data = try encoder.encode(document)
    } catch {
      return .failure(PersistenceError("cannot encode the list: \(error)"))
    }
    let temporary = path + ".tmp-\(ProcessInfo.processInfo.processIdentifier)"
    guard FileManager.default.createFile(atPath: temporary, contents: data) else {
      return .failure(
        PersistenceError(
          "cannot write \(path.shownInMessage(limit: 100)): \(String(cString: strerror(errno)))"))
    }
    guard rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      return .failure(PersistenceError("cannot write \(path.shownInMessage(limit: 100)): \(reason)"))
    }
    return .success(())
  }

  /// Reads a document, or explains in one line why it cannot.
  static func load(from path: String) -> Result<Document, PersistenceError> {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      return .failure(PersistenceError("no file at \(path.shownInMessage(limit: 100))"))
    }
    guard !isDirectory.boolValue else {
      return .failure(PersistenceError("\(path.shownInMessage(limit: 100)) is a directory"))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      return .failure(
        PersistenceError("cannot read \(path.shownInMessage(limit: 100)): permission denied or unreadable"))
    }
    return decode(data, from: path)
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
struct PersistenceError: Error, Equatable, CustomStringConvertible {
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
