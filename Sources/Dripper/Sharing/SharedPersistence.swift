#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a ``SharedValue`` keeps its value between runs.
public struct SharedPersistence<Value: Sendable>: Sendable {
  /// Reads the persisted value: `nil` when there is none yet, an error when it cannot be read.
  let load: (@Sendable () -> Result<Value?, SharedPersistenceError>)?
  /// Writes a value, unless `isCurrent` says, as the write is about to happen, that another value
  /// superseded it (one another writer left in the file, adopted meanwhile).
  let save: (@Sendable (Value, _ isCurrent: () -> Bool) -> SharedPersistenceError?)?
  /// Starts noticing the changes others make (another process writing the file), handing each
  /// new value to the closure, which adopts it and returns what to do once the persistence's lock
  /// is released; `nil` when nothing else writes.
  let watch: (@Sendable (@escaping @Sendable (Value) -> Adopted) -> SharedWatch?)?

  /// What adopting another writer's value leaves to do after the persistence's lock: tell the
  /// Stations that hold the value.
  typealias Adopted = [StationSharing]

  init(
    load: (@Sendable () -> Result<Value?, SharedPersistenceError>)?,
    save: (@Sendable (Value, _ isCurrent: () -> Bool) -> SharedPersistenceError?)?,
    watch: (@Sendable (@escaping @Sendable (Value) -> Adopted) -> SharedWatch?)? = nil
  ) {
    self.load = load
    self.save = save
    self.watch = watch
  }

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
      save: { value, isCurrent in
        guard isCurrent() else { return nil }
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
  /// never half of one.
  ///
  /// What it guarantees of the user's file: only a regular file is read (at most 64 MiB) or
  /// replaced — a FIFO, a device or a directory at `path` is an error, never read or replaced; a
  /// symbolic link at `path` stays and the file it leads to is replaced; the new file keeps the
  /// old one's permissions (a `0600` file stays private); the temporary file cannot be planted or
  /// hijacked by others who may write in the directory; and once a write is reported done, it
  /// survives a crash (the file and its directory are synced). Two processes writing one file: the
  /// last writer wins. A change another process makes to the file is noticed and becomes the
  /// value (see ``SharedValue``).
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
    // The identity of the file this value last wrote or read, so that its own writes are not
    // taken for others'. Its lock orders the writes, the look at the file and the adoption of what
    // another writer left: a write superseded by an adoption is not made, and an adoption is never
    // overtaken by a write already under way, so that the value and the file cannot part for good.
    let known = Lock<FileIdentity?>(nil)
    @Sendable func decoded(_ bytes: [UInt8]) -> Result<Value, SharedPersistenceError> {
      do {
        return .success(try decode(bytes))
      } catch {
        return .failure(SharedPersistenceError("\(path) could not be decoded: \(error)"))
      }
    }
    return Self(
      load: {
        known.withLock { known in
          switch AtomicFile.contentsAndIdentity(at: path) {
          case .failure(let failure):
            return .failure(SharedPersistenceError("cannot read \(path): \(failure.reason)"))
          case .success(nil): return .success(nil)
          case .success(let read?):
            known = read.identity
            return decoded(read.bytes).map { $0 }
          }
        }
      },
      save: { value, isCurrent in
        let bytes: [UInt8]
        do {
          bytes = try encode(value)
        } catch {
          return SharedPersistenceError("a value for \(path) could not be encoded: \(error)")
        }
        return known.withLock { known in
          guard isCurrent() else { return nil }
          switch AtomicFile.replacing(at: path, with: bytes) {
          case .success(let identity):
            known = identity
            return nil
          case .failure(let failure):
            return SharedPersistenceError("cannot write \(path): \(failure.reason)")
          }
        }
      },
      watch: { adopt in
        SharedWatch(path: path) {
          let adopted = known.withLock { known -> Adopted in
            guard FileIdentity(of: path) != known,
              case .success(let read?) = AtomicFile.contentsAndIdentity(at: path)
            else { return [] }
            known = read.identity
            guard case .success(let value) = decoded(read.bytes) else { return [] }
            return adopt(value)
          }
          for holder in adopted { holder.changed() }
        }
      })
  }
}

/// Notices changes to a file: a thread of its own waits for changes in the file's directory
/// (inotify, on Linux) or looks at the file once a second (elsewhere), and calls `changed`, which
/// tells whether the file is another. Stops when released.
final class SharedWatch: Sendable {
  /// The write end of the pipe that tells the thread to stop.
  private let stop: Int32
  /// Looks at the file: what the thread does on each change.
  let check: @Sendable () -> Void

  init?(path: String, changed: @escaping @Sendable () -> Void) {
    let directory: String
    if let slash = path.lastIndex(of: "/") {
      directory = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
      directory = "."
    }
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return nil }
    var events: Int32 = -1
    #if canImport(Glibc)
      events = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB)
      if events >= 0, inotify_add_watch(events, directory, mask) < 0 {
        close(events)
        events = -1
      }
    #endif
    let watcher = Watcher(events: events, stop: pipeEnds[0], changed: changed)
    guard OSThread.start({ watcher.run() }) else {
      close(pipeEnds[0])
      close(pipeEnds[1])
      if events >= 0 { close(events) }
      return nil
    }
    stop = pipeEnds[1]
    check = changed
  }

  deinit {
    // Closing the write end wakes the thread, which closes the rest.
    close(stop)
  }

  /// What the thread runs: waits for changes until the pipe closes.
  private final class Watcher: Sendable {
    let events: Int32
    let stop: Int32
    let changed: @Sendable () -> Void

    init(events: Int32, stop: Int32, changed: @escaping @Sendable () -> Void) {
      self.events = events
      self.stop = stop
      self.changed = changed
    }

    func run() {
      defer {
        close(stop)
        if events >= 0 { close(events) }
      }
      var descriptors = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
      if events >= 0 { descriptors.append(pollfd(fd: events, events: Int16(POLLIN), revents: 0)) }
      // Without inotify, the file is looked at once a second.
      let timeout: Int32 = events >= 0 ? -1 : 1_000
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        if ready < 0, errno == EINTR { continue }
        if ready < 0 || descriptors[0].revents != 0 { return }
        if events >= 0 {
          // Takes the events: their names do not matter, the file's identity says what changed.
          while buffer.withUnsafeMutableBytes({ read(events, $0.baseAddress, $0.count) }) > 0 {}
        }
        changed()
      }
    }
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
