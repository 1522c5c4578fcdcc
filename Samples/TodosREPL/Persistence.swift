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

  /// Whether a file (or a link to one) is at `path`.
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// The path a write to `path` must replace: the target of a symbolic link, followed, so that
  /// saving onto a link updates the file it points to instead of replacing the link.
  static func writeTarget(of path: String) -> String {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(path, nil)
    else {
      return path
    }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Writes the document atomically: to a temporary file beside the target, then renamed over
  /// it, so that a crash during the write never leaves a half-written file. Errors name the cause
  /// the system gave for the step that failed.
  static func save(_ document: Document, to path: String) -> Result<Void, PersistenceError> {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data: Data
    do {
      data = try encoder.encode(document)
    } catch {
      return .failure(PersistenceError("cannot encode the list: \(error)"))
    }
    let target = writeTarget(of: path)
    func failure(_ code: Int32) -> Result<Void, PersistenceError> {
      .failure(
        PersistenceError(
          "cannot write \(path.shownInMessage(limit: 100)): \(String(cString: strerror(code)))"))
    }
    let temporary = target + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return failure(errno) }
    let bytes = [UInt8](data)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        close(descriptor)
        unlink(temporary)
        return failure(code)
      }
      offset += written
    }
    guard fsync(descriptor) == 0, close(descriptor) == 0 else {
      let code = errno
      unlink(temporary)
      return failure(code)
    }
    guard rename(temporary, target) == 0 else {
      let code = errno
      unlink(temporary)
      return failure(code)
    }
    return .success(())
  }

  /// Reads a document, or explains in one line why it cannot, with the cause the system gave.
  static func load(from path: String) -> Result<Document, PersistenceError> {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else {
      let code = errno
      if code == ENOENT { return .failure(PersistenceError("no file at \(path.shownInMessage(limit: 100))")) }
      return .failure(
        PersistenceError("cannot read \(path.shownInMessage(limit: 100)): \(String(cString: strerror(code)))")
      )
    }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
      return .failure(PersistenceError("\(path.shownInMessage(limit: 100)) is a directory"))
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { break }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        return .failure(
          PersistenceError(
            "cannot read \(path.shownInMessage(limit: 100)): \(String(cString: strerror(code)))"))
      }
      bytes += chunk[0..<count]
    }
    return decode(Data(bytes), from: path)
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
