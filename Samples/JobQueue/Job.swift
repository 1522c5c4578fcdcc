import Dripper

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A job's number, given by the client that submits it.
typealias JobID = Int

/// A job and where it stands.
struct Job: Equatable, Sendable {
  enum Status: Equatable, Sendable {
    case queued
    case running(worker: Int)
    case waitingToRetry
    case done
    case failed
    case cancelled

    /// Whether the job has ended: it will not change again.
    var hasEnded: Bool {
      switch self {
      case .done, .failed, .cancelled: true
      case .queued, .running, .waitingToRetry: false
      }
    }
  }

  let id: JobID
  var status = Status.queued
  /// How many attempts have started.
  var attempts = 0
  /// When it was submitted: the time since 1970-01-01 00:00:00 UTC, kept as a `Duration` so that
  /// a snapshot writes it and reads it back exactly (a `Date` is a `Double` of seconds).
  let submittedAt: Duration
  /// How many times the job ended: the tests check that it is never more than once.
  var endings = 0
}

/// First in, first out, with a constant-time removal from the front.
struct FIFO<Element: Equatable & Sendable>: Equatable, Sendable {
  private var storage: [Element] = []
  private var head = 0

  var isEmpty: Bool { head == storage.count }
  var count: Int { storage.count - head }

  mutating func append(_ element: Element) { storage.append(element) }

  mutating func popFirst() -> Element? {
    guard head < storage.count else { return nil }
    defer {
      head += 1
      if head > 1024, head * 2 > storage.count {
        storage.removeFirst(head)
        head = 0
      }
    }
    return storage[head]
  }

  /// Removes `element`; returns whether it was there.
  mutating func remove(_ element: Element) -> Bool {
    guard let index = storage[head...].firstIndex(of: element) else { return false }
    storage.remove(at: index)
    return true
  }

  mutating func removeAll() {
    storage.removeAll()
    head = 0
  }

  var elements: ArraySlice<Element> { storage[head...] }
}

extension Duration {
  /// The time from 1970-01-01 00:00:00 UTC to `date`, to the nanosecond.
  static func sinceEpoch(_ date: Date) -> Duration {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    return .seconds(Int64(seconds))
      + .nanoseconds(Int64(((date.timeIntervalSince1970 - seconds) * 1e9).rounded()))
  }
}
