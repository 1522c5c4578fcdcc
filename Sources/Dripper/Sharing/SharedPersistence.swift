#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a ``SharedValue`` keeps its value between runs.
public struct SharedPersistence<Value: Sendable>: Sendable {
  /// Reads the persisted value: `nil` when there is none yet, an error when it cannot be read.
  let load: (@Sendable () -> Result<Value?, SharedPersistenceError>)?
  /// Writes a value.
  let save: (@Sendable (Value) -> SharedPersistenceError?)?

  /// Kept in memory only: it starts afresh each run.
  public static var inMemory: Self { Self(load: nil, save: nil) }

  /// Persistence of your own: `load` returns the stored value (`nil` when there is none, throws
  /// when it cannot be read), `save` stores one. `save` runs off the actors, one call at a time.
  public static func custom(
    load: @escaping @Sendable () throws -> Value?, save: @escaping @Sendable (Value) throws -> Void
  ) -> Self {
    Self(
      load: {
        do { return .success(try load()) } catch { return .failure(SharedPersistenceError("\(error)")) }
      },
      save: { value in
        do {
          try save(value)
          return nil
        } catch {
          return SharedPersistenceError("\(error)")
        }
      })
  }

  /// A file at `path`, in the bytes `encode` makes (JSON, with Foundation's `JSONEncoder`, in an
  /// app). A missing file is no value yet; a file that cannot be read or decoded is a
  /// ``SharedValue/loadFailure`` and is not loaded. Each write goes to a temporary file next to
  /// `path`, then is renamed over it: a reader, or a crash, sees the old file or the new one,
  /// never half of one. A symbolic link at `path` stays, and its target is replaced.
  ///
  /// ```swift
  /// .file(
  ///   at: path, encode: { Array(try JSONEncoder().encode($0)) },
  ///   decode: { try JSONDecoder().decode(Settings.self, from: Data($0)) })
  /// ```
  public static func file(
    at path: String, encode: @escaping @Sendable (Value) throws -> [UInt8],
    decode: @escaping @Sendable ([UInt8]) throws -> Value
  ) -> Self {
    Self(
      load: {
        switch AtomicFile.contents(at: path) {
        case .failure(let failure):
          return .failure(SharedPersistenceError("cannot read \(path): \(failure.reason)"))
        case .success(nil): return .success(nil)
        case .success(let bytes?):
          do {
            return .success(try decode(bytes))
          } catch {
            return .failure(SharedPersistenceError("\(path) could not be decoded: \(error)"))
          }
        }
      },
      save: { value in
        do {
          return AtomicFile.replace(at: path, with: try encode(value)).map {
            SharedPersistenceError("cannot write \(path): \($0.reason)")
          }
        } catch {
          return SharedPersistenceError("a value for \(path) could not be encoded: \(error)")
        }
      })
  }
}

/// Why a shared value could not be loaded or saved, in one line.
public struct SharedPersistenceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The explanation.
  public let message: String

  /// An error saying `message`.
  public init(_ message: String) { self.message = message }

  /// The explanation.
  public var description: String { message }
}

/// Reading a file whole, and replacing one atomically, with the C library alone: what a
/// ``SharedPersistence/file(at:encode:decode:)`` and the samples' saved lists use.
package enum AtomicFile {
  /// Why a read or a write failed: the system's error number for the step that failed.
  package struct Failure: Error, Sendable, Equatable {
    /// The `errno` value.
    package let code: Int32

    /// The system's explanation, as `strerror` gives it.
    package var reason: String { String(cString: strerror(code)) }
  }

  /// The bytes of the file at `path`; `nil` if there is no file.
  package static func contents(at path: String) -> Result<[UInt8]?, Failure> {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else {
      let code = errno
      return code == ENOENT ? .success(nil) : .failure(Failure(code: code))
    }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return .success(bytes) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        return .failure(Failure(code: code))
      }
      bytes += chunk[0..<count]
    }
  }

  /// Writes `bytes` to a temporary file next to the target, then renames it over the target: a
  /// reader, or a crash, sees the old file or the new one, never half of one. The target is
  /// `path`, or, when `path` is a symbolic link, the file it points to, so that the link stays.
  package static func replace(at path: String, with bytes: [UInt8]) -> Failure? {
    let target = resolvingLink(path)
    let temporary = "\(target).tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else { return Failure(code: errno) }
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        close(descriptor)
        unlink(temporary)
        return Failure(code: code)
      }
      offset += written
    }
    guard fsync(descriptor) == 0, close(descriptor) == 0, rename(temporary, target) == 0 else {
      let code = errno
      unlink(temporary)
      return Failure(code: code)
    }
    return nil
  }

  /// The file a symbolic link at `path` points to (following a chain of links, even to a file
  /// that does not exist yet), or `path` itself.
  private static func resolvingLink(_ path: String) -> String {
    var path = path
    for _ in 0..<32 {
      var status = stat()
      guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(path, &buffer, buffer.count - 1)
      guard count > 0 else { return path }
      let destination = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if destination.hasPrefix("/") {
        path = destination
      } else if let slash = path.lastIndex(of: "/") {
        path = String(path[...slash]) + destination
      } else {
        path = destination
      }
    }
    return path
  }
}
