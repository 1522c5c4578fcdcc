#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A folder that keeps a Station's state across restarts and crashes: a snapshot of the state, and
/// a journal of the actions reduced since.
///
/// ```swift
/// let durable = DurableJournal<Counter.State, Counter.Action>(
///   directory: "state/counter", durability: .everyAction,
///   encodeAction: { "\($0)" }, decodeAction: { try Counter.Action(journaled: $0) },
///   encodeState: { "\($0.count)" }, decodeState: { Counter.State(count: Int($0) ?? 0) })
/// let station = try Station.recovering(from: durable, initialState: Counter.State()) { Counter() }
/// ```
///
/// ``Station/recovering(from:initialState:observers:dripper:withDependencies:)`` starts from the
/// snapshot (or the initial state, the first time) and folds the journal's entries after it
/// through the feature, with effects not run; then the Station records each action it reduces.
/// Every `snapshotEvery` actions the state is encoded and written atomically as the new snapshot,
/// once every entry before it is synced, and the journal is cut back to its header: recovery
/// reads the snapshot and the entries after it, so its time grows with those entries, not with
/// the Station's whole history.
///
/// A crash at any moment (`kill -9`, a power cut) loses at most what the ``JournalDurability`` lets
/// it: nothing with ``JournalDurability/everyAction``. A torn last line is ignored and said in
/// ``JournalRecovery/tornTail``; a damaged line before the last, or a snapshot that does not
/// decode, is an error, and nothing is changed on disk.
///
/// Effects are not recorded: the actions they pour are. Work that was in flight when the process
/// ended (a request, a job) is in the recovered state as started and not finished; pour an action
/// that resumes it once the Station is back.
public final class DurableJournal<State: Sendable, Action: Sendable>: Sendable {
  /// The folder.
  public let directory: String
  let durability: JournalDurability
  let snapshotEvery: UInt64
  @usableFromInline let codec: JournalCodec<State, Action>
  let schema: JournalSchema<State, Action>
  @usableFromInline let stateHash: StateHash<State>?
  /// What recovery reads, and so what is written.
  let limits: JournalLimits
  let opened = Lock<(journal: Journal?, recovery: JournalRecovery?)>((nil, nil))

  /// A durable journal in `directory` (created if missing), with its codecs and policies.
  ///
  /// - Parameters:
  ///   - directory: The folder that holds the snapshot (`snapshot`) and the journal (`journal`).
  ///   - durability: When entries are synced: what a crash may lose.
  ///   - snapshotEvery: How many actions between snapshots (at least 1).
  ///   - stateHash: A hash kept with each entry, checked as the journal is recovered.
  ///   - encodeAction: An action as one entry's text.
  ///   - decodeAction: An action from its text.
  ///   - encodeState: The state as a snapshot's text.
  ///   - decodeState: The state from a snapshot's text.
  public convenience init(
    directory: String, durability: JournalDurability = .everyAction, snapshotEvery: Int = 10_000,
    hashing stateHash: StateHash<State>? = nil,
    encodeAction: @escaping @Sendable (Action) -> String,
    decodeAction: @escaping @Sendable (String) throws -> Action,
    encodeState: @escaping @Sendable (State) throws -> String,
    decodeState: @escaping @Sendable (String) throws -> State
  ) {
    self.init(
      directory: directory, durability: durability, snapshotEvery: snapshotEvery, hashing: stateHash,
      codec: JournalCodec(
        encodeAction: encodeAction, decodeAction: decodeAction, encodeState: encodeState,
        decodeState: decodeState),
      schema: .initial)
  }

  /// A durable journal in `directory` that writes actions and states with `codec`, under `schema`'s
  /// version, migrating what older versions wrote (see ``JournalSchema``).
  ///
  /// ```swift
  /// let durable = DurableJournal<Cart.State, Cart.Action>(directory: "state/cart", codec: .json)
  /// ```
  public convenience init(
    directory: String, durability: JournalDurability = .everyAction, snapshotEvery: Int = 10_000,
    hashing stateHash: StateHash<State>? = nil, codec: JournalCodec<State, Action>,
    schema: JournalSchema<State, Action> = .initial
  ) {
    self.init(
      directory: directory, durability: durability, snapshotEvery: snapshotEvery, hashing: stateHash,
      codec: codec, schema: schema, limits: .standard)
  }

  /// A durable journal whose reader reads at most `limits`: small ones, for tests.
  init(
    directory: String, durability: JournalDurability, snapshotEvery: Int,
    hashing stateHash: StateHash<State>?,
    codec: JournalCodec<State, Action>, schema: JournalSchema<State, Action>, limits: JournalLimits
  ) {
    self.directory = directory
    self.durability = durability
    self.snapshotEvery = UInt64(max(1, snapshotEvery))
    self.stateHash = stateHash
    self.codec = codec
    self.schema = schema
    self.limits = limits
  }

  var journalPath: String { directory + "/journal" }
  var snapshotPath: String { directory + "/snapshot" }

  /// What the last recovery found; `nil` before one.
  public var recovery: JournalRecovery? { opened.withLock { $0.recovery } }

  /// The error of the last write to the journal or a snapshot, until a later write succeeds (see
  /// ``Journal/writeFailure``).
  public var writeFailure: JournalError? {
    opened.withLock { $0.journal }?.writeFailure
  }

  /// Writes and syncs the entries still waiting.
  public func flush() throws(JournalError) {
    try opened.withLock { $0.journal }?.flush()
  }

  /// Flushes and closes the journal.
  public func close() throws(JournalError) {
    try opened.withLock { $0.journal }?.close()
  }

  // MARK: - Recovery

  /// Reads the snapshot and the journal, folding its entries through `dripper`; returns the state
  /// and the journal, open for the Station to record to.
  ///
  /// What an older schema wrote is migrated, then written again as a snapshot of the current one,
  /// and the journal starts again under it. Nothing is written before everything has been read:
  /// an error leaves the files as they were.
  @usableFromInline
  func recover(
    initialState: () -> State, dripper: some Dripper<State, Action>,
    prepare: (inout DependencyValues) -> Void
  ) throws(JournalError) -> (State, Journal) {
    try makeDirectory()
    let snapshot = try readSnapshot()
    let start = try startingState(snapshot, named: snapshotPath, initialState: initialState)
    var folder = ReplayFolder(dripper: dripper, state: start, stateHash: stateHash, prepare: prepare)
    let after = snapshot?.sequence ?? 0
    let path = journalPath
    let (schema, codec) = (self.schema, self.codec)
    var journalSchema = schema.version
    let decodeOld: (String) throws -> Action = { text in try schema.migrateAction(text, journalSchema) }
    let file = try JournalFile(
      path: path, durability: durability, afterSequence: after, lineLimit: limits.line,
      schema: schema.version,
      header: { found throws(JournalError) in
        if let refusal = schema.refusal(of: path, found: found) { throw refusal }
        journalSchema = found
      },
      each: { entry throws(JournalError) in
        let expected = (folder.report.lastSequence ?? after) + 1
        guard entry.sequence == expected else {
          throw JournalError(
            "\(path): entry \(entry.sequence) follows \(expected - 1): entries \(expected)…\(entry.sequence - 1) are missing"
          )
        }
        let current = journalSchema == schema.version
        try folder.fold(entry, decode: current ? codec.decodeAction : decodeOld, checkingHash: current)
      })
    let migratedFrom = min(snapshot?.schema ?? schema.version, journalSchema)
    if migratedFrom < schema.version, folder.report.replayed > 0 || snapshot != nil {
      try rewrite(folder.state, at: file.lastSequence, in: file)
    }
    let journal = Journal(file: file, limits: limits)
    var recovery = JournalRecovery(
      snapshotSequence: snapshot?.sequence, replayed: folder.report.replayed,
      lastSequence: file.lastSequence, tornTail: file.tornTail, divergence: folder.report.divergence)
    if migratedFrom < schema.version { recovery.migratedFrom = migratedFrom }
    let previous = opened.withLock { opened in
      defer { opened = (journal, recovery) }
      return opened.journal
    }
    try? previous?.close()
    return (folder.state, journal)
  }

  /// The state a recovery starts from: the snapshot's, decoded or migrated, or the initial state.
  func startingState(
    _ snapshot: (sequence: UInt64, text: String, schema: Int)?, named name: String, initialState: () -> State
  ) throws(JournalError) -> State {
    guard let snapshot else { return initialState() }
    if let refusal = schema.refusal(of: name, found: snapshot.schema) { throw refusal }
    do {
      return snapshot.schema == schema.version
        ? try codec.decodeState(snapshot.text) : try schema.migrateState(snapshot.text, snapshot.schema)
    } catch {
      let verb =
        snapshot.schema == schema.version ? "decoded" : "migrated from schema version \(snapshot.schema)"
      throw JournalError("\(name): the snapshot could not be \(verb): \(error)")
    }
  }

  /// After a migration: the state as a snapshot of the current schema, then the journal emptied
  /// under it. A crash between the two leaves entries the snapshot holds, which the next recovery
  /// skips by their numbers.
  private func rewrite(_ state: State, at sequence: UInt64, in file: JournalFile) throws(JournalError) {
    let text: String
    do {
      text = try codec.encodeState(state)
    } catch {
      file.shutDown(waiting: true)
      throw JournalError("\(snapshotPath): the migrated state could not be encoded: \(error)")
    }
    if let error = Self.writeSnapshot(text, sequence: sequence, schema: schema.version, to: snapshotPath) {
      file.shutDown(waiting: true)
      throw error
    }
    if let error = file.restart(schema: schema.version) {
      file.shutDown(waiting: true)
      throw error
    }
  }

  private func makeDirectory() throws(JournalError) {
    if let failure = AtomicFile.makeDirectory(directory) { throw JournalError(directory, failure) }
  }
}

/// What a durable journal's recovery found.
public struct JournalRecovery: Sendable, Equatable {
  /// The sequence number of the snapshot it started from; `nil` when it started from the initial
  /// state.
  public var snapshotSequence: UInt64?
  /// How many journal entries after the snapshot it folded.
  public var replayed: Int
  /// The number of the last entry: the next action recorded is one more.
  public var lastSequence: UInt64
  /// A torn last line it ignored and cut off the journal.
  public var tornTail: String?
  /// The first entry whose state did not hash as recorded, when the journal hashes states.
  public var divergence: ReplayDivergence?
  /// The schema version the oldest of the snapshot and the journal was written under, when it was
  /// older than the program's and was migrated (see ``JournalSchema``); `nil` otherwise.
  public var migratedFrom: Int?
}
