import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: - The writer and the end of a journal file

extension JournalFile {
  /// Flushes and closes the file; stops the writer, and waits for it if `waiting`. The error of
  /// the last flush.
  @discardableResult
  func shutDown(waiting: Bool) -> JournalError? {
    let alreadyClosed = pending.withLock { pending in
      defer { pending.closed = true }
      return pending.closed
    }
    if alreadyClosed { return writing.withLock { $0.error } }
    if let wake {
      wake.signal()
      if waiting {
        ended.wait()
        ended.signal()
      }
      return waiting ? writing.withLock { $0.error } : nil
    }
    let error = flush()
    closeDescriptor()
    return error
  }

  func closeDescriptor() {
    writing.withLock { writing in
      if writing.descriptor >= 0 { close(writing.descriptor) }
      writing.descriptor = -1
    }
  }

  /// Starts the thread that writes batches: when woken, and at each interval. It holds the file
  /// until it ends, after the file is closed.
  func startWriter() -> Bool {
    OSThread.start { [self] in runWriter() }
  }

  func runWriter() {
    defer { ended.signal() }
    while true {
      switch durability {
      case .interval(let interval):
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        _ = wake?.wait(timeout: .now() + .nanoseconds(max(1, nanoseconds)))
      default:
        wake?.wait()
      }
      let closed = pending.withLock { $0.closed }
      flush()
      if closed {
        closeDescriptor()
        return
      }
    }
  }
}

/// What became of a snapshot a durable journal asked its file to write.
enum SnapshotOutcome: Sendable {
  /// Written and synced: the journal is cut back to its header.
  case written
  /// Writing it failed (a full disk): an error, as a failed write of entries is.
  case failed(JournalError)
  /// Not written, because recovery could not read it back (too large, or its text does not
  /// decode): the journal keeps its entries, and the note is reported once.
  case refused(String)
}

/// Why a snapshot was not written: what ``SnapshotOutcome`` says of it.
struct SnapshotRefusal: Error {
  let outcome: SnapshotOutcome
}
