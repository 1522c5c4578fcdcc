#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a host does on disk for one key: find its folder (moving one an earlier Dripper named
/// otherwise), and make it when the key first records. Blocking: on a storage thread.
enum HostFolder {
  /// Whether the key has a folder at `path`, its new place; one found at an old name (see
  /// ``KeyFolder/legacyPaths(of:in:)``) is moved there first. Two old folders of the key, under
  /// two spellings of its text, are refused: which one holds its history is for a person to say.
  static func locate(_ text: String, at path: String, hashed: Bool, in root: String) -> Result<
    Bool, JournalError
  > {
    switch kind(of: path) {
    case .directory: return .success(true)
    case .other: return .failure(JournalError("\(path): it is not a directory"))
    case .missing: break
    case .unreadable(let code): return .failure(JournalError(path, .init(code: code)))
    }
    var found: [(path: String, hashed: Bool, text: String)] = []
    for legacy in KeyFolder.legacyPaths(of: text, in: root) {
      switch kind(of: legacy.path) {
      case .directory: found.append(legacy)
      case .missing: continue
      case .other: return .failure(JournalError("\(legacy.path): it is not a directory"))
      case .unreadable(let code): return .failure(JournalError(legacy.path, .init(code: code)))
      }
    }
    guard let legacy = found.first else { return .success(false) }
    guard found.count == 1 else {
      return .failure(
        JournalError(
          "two folders hold this key under two spellings of its text: \(found.map(\.path).joined(separator: " and ")); "
            + "keep the one whose history is right and remove the other"))
    }
    if let error = KeyFolder.make(parent(of: path), under: root) { return .failure(error) }
    guard rename(legacy.path, path) == 0 else {
      return .failure(JournalError(legacy.path, .init(code: errno)))
    }
    if let failure = AtomicFile.syncDirectory(parent(of: path))
      ?? AtomicFile.syncDirectory(parent(of: legacy.path))
    {
      return .failure(JournalError(path, failure))
    }
    if legacy.hashed {
      // Its `key` file holds the text as an earlier Dripper was given it.
      let file = path + "/key"
      if let failure = AtomicFile.replace(at: file, with: Array(KeyFolder.canonical(text).utf8)) {
        return .failure(JournalError(file, failure))
      }
    }
    return .success(true)
  }

  /// Makes the folder of a key that had none, and its journal, empty and locked: the first flush
  /// of its log. Refused if another process made the key meanwhile (its journal holds entries, or
  /// it has a snapshot): this process read it before, so its state is behind.
  static func create(
    _ text: String, at path: String, hashed: Bool, under root: String, journal: some DurableJournalFiles
  ) -> Result<JournalFile, JournalError> {
    var created: [String] = []
    var current = root
    for component in path.dropFirst(root.count + 1).split(separator: "/") {
      current += "/" + component
      let existed = kind(of: current) == .directory
      if let failure = AtomicFile.makeDirectory(current) { return .failure(JournalError(current, failure)) }
      if !existed { created.append(current) }
    }
    if hashed, let error = KeyFolder.claim(path, for: text) { return .failure(error) }
    let file: JournalFile
    do {
      file = try JournalFile(
        path: journal.journalPath, durability: .everyAction, afterSequence: 0, schema: journal.schemaVersion)
    } catch {
      return .failure(error)
    }
    guard file.lastSequence == 0, kind(of: journal.snapshotPath) == .missing else {
      file.shutDown(waiting: true)
      return .failure(
        JournalError("\(path) was written by another process since this one read it: the key is read again"))
    }
    // The new folders' names are durable with their parents: the journal's first entries are
    // synced, and must be found after a crash.
    for directory in [path] + created.reversed().map(parent(of:)) {
      if let failure = AtomicFile.syncDirectory(directory) {
        file.shutDown(waiting: true)
        return .failure(JournalError(directory, failure))
      }
    }
    return .success(file)
  }

  /// Whether a key's folder exists, at its place or an old one; reads, creates nothing.
  static func exists(_ text: String, in root: String) -> Result<Bool, JournalError> {
    let (path, _) = KeyFolder.path(of: text, in: root)
    for candidate in [path] + KeyFolder.legacyPaths(of: text, in: root).map(\.path) {
      switch kind(of: candidate) {
      case .directory: return .success(true)
      case .missing: continue
      case .other: return .failure(JournalError("\(candidate): it is not a directory"))
      case .unreadable(let code): return .failure(JournalError(candidate, .init(code: code)))
      }
    }
    return .success(false)
  }

  enum Kind: Equatable {
    case directory
    case missing
    case other
    case unreadable(Int32)
  }

  /// What is at `path`, without following a link.
  static func kind(of path: String) -> Kind {
    var status = stat()
    guard lstat(path, &status) == 0 else { return errno == ENOENT ? .missing : .unreadable(errno) }
    return status.st_mode & S_IFMT == S_IFDIR ? .directory : .other
  }

  private static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }
}

/// What ``HostFolder/create(_:at:hashed:under:journal:)`` needs of a key's durable journal.
protocol DurableJournalFiles {
  var journalPath: String { get }
  var snapshotPath: String { get }
  var schemaVersion: Int { get }
}

extension DurableJournal: DurableJournalFiles {
  var schemaVersion: Int { schema.version }
}
