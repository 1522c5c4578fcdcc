#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading a file whole, and replacing one atomically, with the C library alone: what a
/// ``SharedPersistence/file(at:encode:decode:)`` and the samples' saved lists use. A user's files
/// are their data, and the directory they are in may be shared with others:
///
/// - **Only regular files.** A read opens without blocking (a FIFO at the path never blocks it),
///   checks what it opened, and reads at most ``sizeLimit`` bytes: a device, a FIFO or a
///   directory is refused, and so is a link to one. A write refuses to replace anything but a
///   regular file or nothing.
/// - **Links.** A symbolic link at the path stays, and the file it leads to is replaced: the chain
///   of links is resolved first (at most 32 of them; a loop is an error, and is left as it is).
/// - **Modes.** The new file keeps the permission bits of the one it replaces (and its owner and
///   group, where the process may set them); a new file gets `0666` less the process's umask.
/// - **The temporary file** is created next to the target under a name no one can guess
///   (`.<name>.tmp-<pid>-<random>`), exclusively and never through a link, readable by its owner
///   alone until it takes the target's mode: nobody can plant a file or a link in its place.
/// - **Durability.** The data is synced, the temporary file renamed over the target, and the
///   directory synced: once ``replace(at:with:)`` returns, the new file survives a crash. A crash
///   before the rename leaves the old file whole; the temporary files of writers that are gone
///   (a `kill -9`) are removed at the next write. A write that fails removes its temporary file
///   and reports the step that failed; nothing is replaced.
/// - **Two processes** writing one file: each write is whole, and the last one wins.
package enum AtomicFile {
  /// The most a read takes: 64 MiB. A larger file is refused rather than read into memory.
  package static let sizeLimit = 64 << 20

  /// Why a read or a write failed: the system's error for the step that failed, or what the path
  /// is when it is not a file that may be read or replaced.
  package struct Failure: Error, Sendable, Equatable {
    /// The `errno` value; 0 for a refusal of the library's own.
    package let code: Int32
    /// The library's own explanation, when it refused.
    package let refusal: String?

    init(code: Int32) {
      self.code = code
      self.refusal = nil
    }

    init(refusing reason: String) {
      self.code = 0
      self.refusal = reason
    }

    /// The explanation: the library's, or the system's, as `strerror` gives it.
    package var reason: String { refusal ?? String(cString: strerror(code)) }
  }

  // MARK: - Reading

  /// The bytes of the file at `path`; `nil` if there is no file. Refuses what is not a regular
  /// file, and a file larger than `limit`.
  package static func contents(at path: String, limit: Int = sizeLimit) -> Result<[UInt8]?, Failure> {
    contentsAndIdentity(at: path, limit: limit).map { $0?.bytes }
  }

  /// The bytes of the file at `path` and the identity of the file they were read from (one
  /// open file, so that the two agree even if another process renames a file over the path
  /// meanwhile); `nil` if there is no file.
  static func contentsAndIdentity(at path: String, limit: Int = sizeLimit)
    -> Result<(bytes: [UInt8], identity: FileIdentity)?, Failure>
  {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      let code = errno
      return code == ENOENT ? .success(nil) : .failure(Failure(code: code))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failure(Failure(code: errno)) }
    if let refusal = refusal(forReading: status.st_mode) { return .failure(Failure(refusing: refusal)) }
    guard Int(status.st_size) <= limit else {
      return .failure(Failure(refusing: "it is larger than \(limit >> 20) MiB, the most that is read"))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(status.st_size))
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return .success((bytes, FileIdentity(status))) }
      if count < 0 {
        let code = errno
        if code == EINTR { continue }
        return .failure(Failure(code: code))
      }
      // The file grew while it was read: bounded all the same.
      guard bytes.count + count <= limit else {
        return .failure(Failure(refusing: "it is larger than \(limit >> 20) MiB, the most that is read"))
      }
      bytes += chunk[0..<count]
    }
  }

  /// Why a file of `mode` is not read, if it is not a regular file.
  static func refusal(forReading mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: nil
    case S_IFDIR: "it is a directory"
    default: "it is not a regular file (a device, a FIFO or a socket)"
    }
  }

  // MARK: - Writing

  /// Writes `bytes` to a new temporary file next to the target, then renames it over the target
  /// (see ``AtomicFile`` for what it guarantees). The target is `path`, or the file the chain of
  /// symbolic links at `path` leads to.
  package static func replace(at path: String, with bytes: [UInt8]) -> Failure? {
    if case .failure(let failure) = replacing(at: path, with: bytes) { return failure }
    return nil
  }

  /// Replaces the file at `path` as ``replace(at:with:)`` does; the identity of the file written,
  /// taken from the file itself before it is renamed over the target: a look at the path after
  /// the rename could find another writer's file, renamed over it meanwhile.
  static func replacing(at path: String, with bytes: [UInt8]) -> Result<FileIdentity, Failure> {
    let target: String
    switch resolvingLinks(path) {
    case .success(let resolved): target = resolved
    case .failure(let failure): return .failure(failure)
    }
    var existing = stat()
    let exists: Bool
    if lstat(target, &existing) == 0 {
      guard existing.st_mode & S_IFMT == S_IFREG else {
        return .failure(Failure(refusing: "it is not a regular file, and is not replaced"))
      }
      exists = true
    } else if errno == ENOENT {
      exists = false
    } else {
      return .failure(Failure(code: errno))
    }
    let (directory, name) = split(target)
    removeAbandonedTemporaries(of: name, in: directory)
    let temporary = directory + "." + name + ".tmp-\(getpid())-" + randomSuffix()
    // Exclusive, never through a link, and private until it has the target's mode.
    let descriptor = open(
      temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? 0o600 : 0o666)
    guard descriptor >= 0 else { return .failure(Failure(code: errno)) }
    var failure: Failure?
    if let error = writeAll(bytes, to: descriptor) {
      failure = error
    } else if exists, fchmod(descriptor, existing.st_mode & 0o7777) != 0 {
      failure = Failure(code: errno)
    } else if fsync(descriptor) != 0 {
      failure = Failure(code: errno)
    }
    // The owner and group, where this process may set them (a file of its own, or as root).
    if failure == nil, exists { _ = fchown(descriptor, existing.st_uid, existing.st_gid) }
    var written = stat()
    if failure == nil, fstat(descriptor, &written) != 0 { failure = Failure(code: errno) }
    if close(descriptor) != 0, failure == nil { failure = Failure(code: errno) }
    if failure == nil, rename(temporary, target) != 0 { failure = Failure(code: errno) }
    if let failure {
      unlink(temporary)
      return .failure(failure)
    }
    if let failure = syncDirectory(directory) { return .failure(failure) }
    return .success(FileIdentity(written))
  }

  /// Writes every byte, through interruptions; the error of a write that failed (a full disk).
  static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Failure? {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 {
        let code = errno
        if code == EINTR { continue }
        return Failure(code: code)
      }
      offset += written
    }
    return nil
  }

  /// Makes the directory at `path` unless there is one; refuses anything else there.
  package static func makeDirectory(_ path: String) -> Failure? {
    guard mkdir(path, 0o777) == 0 || errno == EEXIST else { return Failure(code: errno) }
    var status = stat()
    guard stat(path, &status) == 0 else { return Failure(code: errno) }
    guard status.st_mode & S_IFMT == S_IFDIR else { return Failure(refusing: "it is not a directory") }
    return nil
  }

  /// Makes the directory at `path` and its parents, as ``makeDirectory(_:)`` makes each; the
  /// first that fails, and why.
  static func makeDirectories(_ path: String) -> (path: String, failure: Failure)? {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
      current += "/" + component
      if let failure = makeDirectory(current) { return (current, failure) }
    }
    return nil
  }

  /// Syncs the directory, so that the rename in it survives a crash.
  static func syncDirectory(_ directory: String) -> Failure? {
    let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return Failure(code: errno) }
    defer { close(descriptor) }
    // Some file systems cannot sync a directory; the rename is then as durable as they make it.
    if fsync(descriptor) != 0, errno != EINVAL { return Failure(code: errno) }
    return nil
  }

  /// The directory part of `path` (with its final `/`, or empty) and the name.
  private static func split(_ path: String) -> (directory: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return ("", path) }
    return (String(path[...slash]), String(path[path.index(after: slash)...]))
  }

  /// 16 hexadecimal digits from the system's random source.
  private static func randomSuffix() -> String {
    var generator = SystemRandomNumberGenerator()
    let value = generator.next() as UInt64
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Removes the temporary files of `name` that writers which are gone left behind (a process
  /// killed mid-write): those whose process number is no running process. A live writer's is
  /// left alone.
  private static func removeAbandonedTemporaries(of name: String, in directory: String) {
    guard let names = names(in: directory.isEmpty ? "." : directory) else { return }
    let prefix = "." + name + ".tmp-"
    var abandoned: [String] = []
    for entryName in names {
      guard entryName.hasPrefix(prefix) else { continue }
      let rest = entryName.dropFirst(prefix.count)
      guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
      if pid != getpid(), kill(pid, 0) != 0, errno == ESRCH { abandoned.append(entryName) }
    }
    for entryName in abandoned {
      var status = stat()
      // Only regular files: never follow or remove anything else planted under such a name.
      if lstat(directory + entryName, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
        unlink(directory + entryName)
      }
    }
  }

  /// The names of the entries of the directory at `path`, `.` and `..` among them; `nil` if it
  /// cannot be opened (`errno` says why).
  static func names(in path: String) -> [String]? {
    guard let stream = opendir(path) else { return nil }
    defer { closedir(stream) }
    var names: [String] = []
    // Read in place, up to its end: a copy of the whole `d_name` field would read past the end
    // of a short entry (AddressSanitizer reported it).
    let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name)!
    while let entry = readdir(stream) {
      names.append(
        String(cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)))
    }
    return names
  }

  /// The file a chain of symbolic links at `path` leads to (even one that does not exist yet), or
  /// `path` itself; an error for a loop, or a chain longer than 32.
  static func resolvingLinks(_ path: String) -> Result<String, Failure> {
    var path = path
    for _ in 0..<32 {
      var status = stat()
      guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return .success(path) }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(path, &buffer, buffer.count - 1)
      guard count > 0 else { return .failure(Failure(code: errno)) }
      let destination = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if destination.hasPrefix("/") {
        path = destination
      } else {
        path = split(path).directory + destination
      }
    }
    return .failure(Failure(code: ELOOP))
  }
}

/// Which version of a file is at a path: its inode, size and modification time. A write renames
/// a new file over the old one, so each write is another identity.
struct FileIdentity: Equatable, Sendable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let seconds: Int
  let nanoseconds: Int

  /// The identity of the file at `path`, following links; `nil` when there is none.
  init?(of path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    self.init(status)
  }

  /// The identity of the file `status` describes.
  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    #if canImport(Darwin)
      seconds = Int(status.st_mtimespec.tv_sec)
      nanoseconds = Int(status.st_mtimespec.tv_nsec)
    #else
      seconds = Int(status.st_mtim.tv_sec)
      nanoseconds = Int(status.st_mtim.tv_nsec)
    #endif
  }
}
