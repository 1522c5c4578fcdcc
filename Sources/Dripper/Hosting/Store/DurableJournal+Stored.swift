extension DurableJournal {
  /// Recovers a key read from a ``KeyStore``: its snapshot, decoded or migrated, then each entry
  /// after it folded through `dripper`; the state. `name` says what was read in errors.
  ///
  /// What ``recover(initialState:dripper:prepare:)`` checks of a file is checked here: the
  /// snapshot's checksum and schema, each entry's checksum, numbers without gaps, the limits a
  /// reader reads, and the hashes of the states, which ``recovery`` reports.
  @usableFromInline
  func recover(
    stored: StoredKey, named name: String, initialState: () -> State, dripper: some Dripper<State, Action>,
    prepare: (inout DependencyValues) -> Void
  ) throws(JournalError) -> State {
    var snapshot: (sequence: UInt64, text: String, schema: Int)?
    if let stored = stored.snapshot {
      guard stored.bytes.count <= limits.snapshot else {
        throw JournalError(
          "\(name): its snapshot is \(stored.bytes.count) bytes, more than the \(JournalLimits.describe(limits.snapshot)) a reader reads"
        )
      }
      let parsed = try Self.parseSnapshot(stored.bytes, named: "\(name)'s snapshot")
      guard parsed.sequence == stored.sequence else {
        throw JournalError(
          "\(name): its snapshot holds entry \(parsed.sequence), stored as \(stored.sequence)")
      }
      snapshot = parsed
    }
    let start = try startingState(snapshot, named: "\(name)'s snapshot", initialState: initialState)
    var folder = ReplayFolder(dripper: dripper, state: start, stateHash: stateHash, prepare: prepare)
    let after = snapshot?.sequence ?? 0
    var last = after
    var oldest = snapshot?.schema ?? schema.version
    for entry in stored.entries where entry.sequence > after {
      guard entry.sequence == last + 1 else {
        throw JournalError(
          "\(name): entry \(entry.sequence) follows \(last): entries \(last + 1)…\(entry.sequence - 1) are missing"
        )
      }
      if let refusal = schema.refusal(of: "\(name)'s entry \(entry.sequence)", found: entry.schema) {
        throw refusal
      }
      guard entry.bytes.count <= limits.line else {
        throw JournalError(
          "\(name): entry \(entry.sequence) is \(entry.bytes.count) bytes, more than the \(JournalLimits.describe(limits.line)) a reader reads"
        )
      }
      guard case .success(let line) = JournalLine.decode(entry.bytes[...]), line.sequence == entry.sequence
      else {
        throw JournalError("\(name): entry \(entry.sequence) is not a Dripper journal entry, or is corrupt")
      }
      let current = entry.schema == schema.version
      let (schema, version) = (self.schema, entry.schema)
      try folder.fold(
        line, decode: current ? codec.decodeAction : { text in try schema.migrateAction(text, version) },
        checkingHash: current)
      oldest = min(oldest, entry.schema)
      last = entry.sequence
    }
    var recovery = JournalRecovery(
      snapshotSequence: snapshot?.sequence, replayed: folder.report.replayed, lastSequence: last,
      tornTail: nil,
      divergence: folder.report.divergence)
    if oldest < schema.version { recovery.migratedFrom = oldest }
    opened.withLock { $0.recovery = recovery }
    return folder.state
  }
}
