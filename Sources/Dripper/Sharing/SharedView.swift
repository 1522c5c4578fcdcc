import Synchronization

/// The values shared values show while a test compares a step's states: each ``SharedValue`` as
/// the step left it, and, while the test's assertion runs, as the assertion changes it (its writes
/// go here, never to the value). Bound in the task; plumbing of the test harness.
@usableFromInline
package final class SharedView: Sendable {
  @TaskLocal package static var current: SharedView?
  /// How many views are bound now, anywhere: while none is, a read or a write looks up no
  /// task-local.
  private static let bound = Atomic<Int>(0)

  /// The view bound in this task, if any.
  @usableFromInline
  static var active: SharedView? {
    bound.load(ordering: .relaxed) == 0 ? nil : current
  }

  /// Runs `body` with `view` bound in the task.
  package static func with<Result>(_ view: SharedView, _ body: () throws -> Result) rethrows -> Result {
    bound.add(1, ordering: .relaxed)
    defer { bound.subtract(1, ordering: .relaxed) }
    return try $current.withValue(view, operation: body)
  }

  private let values: Lock<[ObjectIdentifier: any Sendable]>
  /// Whether equality of holders compares which value they hold rather than their values.
  package let comparesHolders: Bool

  /// A view of `snapshot`'s values.
  package init(_ snapshot: SharedSnapshot, comparesHolders: Bool = false) {
    values = Lock(snapshot.entries.mapValues(\.value))
    self.comparesHolders = comparesHolders
  }

  @usableFromInline
  func value(of root: any AnySharedRoot) -> (any Sendable)? {
    values.withLock { $0[ObjectIdentifier(root)] }
  }

  @usableFromInline
  func set(_ value: any Sendable, of root: any AnySharedRoot) {
    values.withLock { $0[ObjectIdentifier(root)] = value }
  }

  /// What the view shows now, for the roots of `snapshot` and those written in the view.
  package func snapshot(over snapshot: SharedSnapshot) -> SharedSnapshot {
    var result = snapshot
    let values = self.values.withLock { $0 }
    for (id, entry) in snapshot.entries {
      if let value = values[id] { result.entries[id] = SharedSnapshot.Entry(root: entry.root, value: value) }
    }
    return result
  }
}

/// The values of the ``SharedValue``s a Station holds, at one moment: what a test compares.
package struct SharedSnapshot: Sendable {
  package struct Entry: Sendable {
    let root: any AnySharedRoot
    let value: any Sendable
  }

  package var entries: [ObjectIdentifier: Entry] = [:]

  package init() {}

  /// Whether no shared value is in it: a feature without shared values compares as before.
  package var isEmpty: Bool { entries.isEmpty }

  /// The values of the Station whose reduction runs here, as they are now; empty outside one.
  package static func ofTheReducingStation() -> SharedSnapshot {
    StationSharing.current?.snapshot() ?? SharedSnapshot()
  }

  /// These values, and `other`'s for the roots these lack: a root first seen in a later step stands
  /// at the value that step found.
  package func filling(from other: SharedSnapshot) -> SharedSnapshot {
    var result = self
    for (id, entry) in other.entries where result.entries[id] == nil { result.entries[id] = entry }
    return result
  }

  /// Each value rendered, in a stable order: what a test shows of shared values no state holds.
  package var lines: [String] {
    entries.values.map { entry in
      "shared " + Dump.name(of: type(of: entry.value)) + ": " + Dump.line(entry.value)
    }.sorted()
  }

  /// Whether both hold equal values for every root either has (a root only one has is compared
  /// with the other's current value).
  package func matches(_ other: SharedSnapshot) -> Bool {
    for (id, entry) in entries {
      let otherValue = other.entries[id]?.value ?? entry.root.current
      if !entry.root.isEqual(entry.value, otherValue) { return false }
    }
    for (id, entry) in other.entries where entries[id] == nil {
      if !entry.root.isEqual(entry.value, entry.root.current) { return false }
    }
    return true
  }
}
