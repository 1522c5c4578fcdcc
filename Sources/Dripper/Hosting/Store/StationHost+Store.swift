#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension StationHost {
  /// Claims `key` in its store and replays what is stored: its Station, whether the store held a
  /// history, and its earliest reminder.
  func recover(_ key: Key, from storage: StoreStorage<State, Action>) async -> Result<
    (Resident, recovered: Bool, reminder: Date?), JournalError
  > {
    // Keys Swift calls equal are one key in the store: their composed form (NFC).
    let text = KeyFolder.canonical(key.stationKeyText)
    let stored: StoredKey
    do {
      stored = try await storage.store.claim(text, owner: storage.node)
    } catch {
      return .failure(error)
    }
    guard let codec = hostedCodec, let schema = hostedSchema else {
      return .failure(JournalError("key \(text): the host has no codec for its store"))
    }
    let journal = KeyJournal(
      directory: "key \(text)", durability: .everyAction, snapshotEvery: .max, hashing: storage.digest.hash(),
      codec: codec, schema: schema, limits: .standard)
    let initial = Hosted.State(value: initialState(key), requests: requests)
    let state: Hosted.State
    do {
      state = try stations.replayStored(self, key, journal, stored, initial)
    } catch {
      return .failure(error)
    }
    if let divergence = journal.recovery?.divergence,
      let refusal = storage.digest.refusal(of: divergence, in: "key \(text)")
    {
      return .failure(refusal)
    }
    let sink = StoreSink(
      store: storage.store, key: text, epoch: stored.epoch, schema: schema.version,
      reminder: state.reminders.earliest)
    let log = KeyLog(sequence: state.sequence, file: sink, open: nil, durability: storage.durability)
    // While resident, entries after a snapshot may still wait with an earlier reminder: its hint
    // stays. A passivating key has nothing after its snapshot: its hint becomes exact.
    let write = { @Sendable (state: Hosted.State, sequence: UInt64, closing: Bool) -> SnapshotOutcome in
      switch journal.encodedSnapshot(of: state, at: sequence) {
      case .success(let bytes):
        sink.write(
          StoredSnapshot(sequence: sequence, bytes: bytes), reminder: state.reminders.earliest, exact: closing
        )
      case .failure(let refusal):
        refusal.outcome
      }
    }
    let resident = resident(
      key, state, log: log, recording: storage.recording, hint: { sink.hint($0) },
      snapshot: { write($0, $1, false) }, closing: { write($0, $1, true) })
    journal.reportRecovery(to: resident.station)
    return .success((resident, !stored.isEmpty, state.reminders.earliest))
  }

  /// The reminders of keys no host holds, due by `now`, that this host fires: those its store
  /// lists, of keys it owns and does not hold. Each goes to the host's own reminders, which pour
  /// them (activating the key, which claims it).
  ///
  /// A sweep reads the earliest page of due reminders and, when that page is full, one more from
  /// where the last sweep stopped, going round: however many keys of other nodes (or keys that
  /// fail to wake) are due before this host's, each of its own is reached within a few sweeps.
  func takeStoredReminders(from storage: StoreStorage<State, Action>, at now: Date) async {
    let page = 1_000
    var due: [StoredReminder]
    do {
      due = try await storage.store.reminders(dueBy: now, after: nil, limit: page)
      if due.count == page {
        let start = storage.reminderCursor.position ?? due.last
        let next = try await storage.store.reminders(dueBy: now, after: start, limit: page)
        storage.reminderCursor.position = next.count == page ? next.last : nil
        due += next
      } else {
        storage.reminderCursor.position = nil
      }
    } catch {
      StandardError.print("dripper: the host's store did not list its reminders: \(error)")
      return
    }
    for reminder in due where storage.owns(reminder.key) {
      guard let key = Key(stationKeyText: reminder.key) else { continue }
      let held = table.withLock { table -> Bool in
        switch table.slots[key] {
        case .passive?, nil: false
        default: true
        }
      }
      // A key resident here knows its reminders; one being read learns them from its state.
      if !held { reminders.changed(key, reminder.due) }
    }
  }
}

/// Where a host's reading of its store's due reminders resumes: after the last reminder of the
/// page it read last, or at the start.
final class ReminderCursor: Sendable {
  private let state = Lock<StoredReminder?>(nil)

  var position: StoredReminder? {
    get { state.withLock { $0 } }
    set { state.withLock { $0 = newValue } }
  }
}
