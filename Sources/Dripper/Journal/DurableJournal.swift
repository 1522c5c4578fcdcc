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
  let encodeAction: @Sendable (Action) -> String
  let decodeAction: @Sendable (String) throws -> Action
  let encodeState: @Sendable (State) throws -> String
  let decodeState: @Sendable (String) throws -> State
  let stateHash: StateHash<State>?
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
  public init(
    directory: String, durability: JournalDurability = .everyAction, snapshotEvery: Int = 10_000,
    hashing stateHash: StateHash<State>? = nil,
    encodeAction: @escaping @Sendable (Action) -> String,
    decodeAction: @escaping @Sendable (String) throws -> Action,
    encodeState: @escaping @Sendable (State) throws -> String,
    decodeState: @escaping @Sendable (String) throws -> State
  ) {
    self.limits = .standard
    self.directory = directory
    self.durability = durability
    self.snapshotEvery = UInt64(max(1, snapshotEvery))
    self.stateHash = stateHash
    self.encodeAction = encodeAction
    self.decodeAction = decodeAction
    self.encodeState = encodeState
    self.decodeState = decodeState
  }

  /// A durable journal whose reader reads at most `limits`: small ones, for tests.
  init(
    directory: String, durability: JournalDurability, snapshotEvery: Int,
    hashing stateHash: StateHash<State>?,
    limits: JournalLimits,
    encodeAction: @escaping @Sendable (Action) -> String,
    decodeAction: @escaping @Sendable (String) throws -> Action,
    encodeState: @escaping @Sendable (State) throws -> String,
    decodeState: @escaping @Sendable (String) throws -> State
  ) {
    self.limits = limits
    self.directory = directory
    self.durability = durability
    self.snapshotEvery = UInt64(max(1, snapshotEvery))
    self.stateHash = stateHash
    self.encodeAction = encodeAction
    self.decodeAction = decodeAction
    self.encodeState = encodeState
    self.decodeState = decodeState
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
  func recover(
    initialState: () -> State, dripper: some Dripper<State, Action>,
    prepare: (inout DependencyValues) -> Void
  ) throws(JournalError) -> (State, Journal) {
    try makeDirectory()
    let snapshot = try readSnapshot()
    let start: State
    if let snapshot {
      do {
        start = try decodeState(snapshot.text)
      } catch {
        throw JournalError("\(snapshotPath): the snapshot could not be decoded: \(error)")
      }
    } else {
      start = initialState()
    }
    var folder = ReplayFolder(dripper: dripper, state: start, stateHash: stateHash, prepare: prepare)
    let after = snapshot?.sequence ?? 0
    let path = journalPath
    let file = try JournalFile(
      path: path, durability: durability, afterSequence: after, lineLimit: limits.line
    ) {
      entry throws(JournalError) in
      let expected = (folder.report.lastSequence ?? after) + 1
      guard entry.sequence == expected else {
        throw JournalError(
          "\(path): entry \(entry.sequence) follows \(expected - 1): entries \(expected)…\(entry.sequence - 1) are missing"
        )
      }
      try folder.fold(entry, decode: decodeAction)
    }
    let journal = Journal(file: file, limits: limits)
    let recovery = JournalRecovery(
      snapshotSequence: snapshot?.sequence, replayed: folder.report.replayed,
      lastSequence: file.lastSequence, tornTail: file.tornTail, divergence: folder.report.divergence)
    let previous = opened.withLock { opened in
      defer { opened = (journal, recovery) }
      return opened.journal
    }
    try? previous?.close()
    return (folder.state, journal)
  }

  /// The recording a recovered Station runs: each entry, and a snapshot every `snapshotEvery`.
  func recording<D: Dripper<State, Action>>(_ dripper: D, to journal: Journal) -> some Dripper<State, Action>
  {
    guard let file = journal.file else { preconditionFailure("a durable journal is a file") }
    let every = snapshotEvery
    let (encodeState, decodeState) = (encodeState, decodeState)
    let path = snapshotPath
    let limit = limits.snapshot
    return _RecordingModifier(
      base: dripper, journal: journal, stateHash: stateHash, encode: encodeAction,
      recorded: { sequence, state in
        guard sequence % every == 0 else { return [] }
        file.snapshot {
          let text: String
          do {
            text = try encodeState(state)
          } catch {
            return .failed(JournalError("\(path): the state could not be encoded for a snapshot: \(error)"))
          }
          let refused = "\(path): the snapshot of entry \(sequence) was not written"
          let bytes = Self.snapshotBytes(text, sequence: sequence)
          guard bytes.count <= limit else {
            return .refused(
              "\(refused): it would be \(bytes.count) bytes, more than the \(JournalLimits.describe(limit)) "
                + "recovery reads; the journal keeps every entry since the last snapshot")
          }
          do {
            _ = try decodeState(text)
          } catch {
            return .refused(
              "\(refused): its text does not decode (\(error)); the journal keeps every entry since the "
                + "last snapshot")
          }
          if let error = AtomicFile.replace(at: path, with: bytes).map({ JournalError(path, $0) }) {
            return .failed(error)
          }
          return .written
        }
        // Written by now if each action is synced; else the next append reports a refusal.
        return file.takeNotes().map { Diagnostic(.other, $0) }
      })
  }

  private func makeDirectory() throws(JournalError) {
    if let failure = AtomicFile.makeDirectory(directory) { throw JournalError(directory, failure) }
  }

  // MARK: - Snapshots

  /// The first line of a snapshot file; the sequence number and the checksum of the text follow.
  static var snapshotHeader: String { "dripper-snapshot 1" }

  private func readSnapshot() throws(JournalError) -> (sequence: UInt64, text: String)? {
    let bytes: [UInt8]
    switch AtomicFile.contents(at: snapshotPath, limit: limits.snapshot) {
    case .success(nil): return nil
    case .success(let contents?): bytes = contents
    case .failure(let failure): throw JournalError(snapshotPath, failure)
    }
    let corrupt = JournalError("\(snapshotPath) is not a Dripper snapshot, or is corrupt")
    guard let newline = bytes.firstIndex(of: JournalLine.newline) else { throw corrupt }
    let fields = bytes[..<newline].split(separator: JournalLine.space)
    guard fields.count == 4,
      String(decoding: fields[0] + [JournalLine.space] + fields[1], as: UTF8.self)
        == Self.snapshotHeader,
      let sequence = JournalLine.decimal(fields[2]), let checksum = JournalLine.hex(fields[3])
    else { throw corrupt }
    let text = bytes[(newline + 1)...]
    var actual = FNV1a()
    actual.add(text)
    guard actual.value == checksum, let string = String(validating: text, as: UTF8.self) else {
      throw corrupt
    }
    return (sequence, string)
  }

  static func writeSnapshot(_ text: String, sequence: UInt64, to path: String, in directory: String)
    -> JournalError?
  {
    AtomicFile.replace(at: path, with: snapshotBytes(text, sequence: sequence)).map { JournalError(path, $0) }
  }

  /// A snapshot file's bytes: its header line, with the sequence number and the text's checksum,
  /// then the text.
  static func snapshotBytes(_ text: String, sequence: UInt64) -> [UInt8] {
    var bytes = Array((snapshotHeader + " ").utf8)
    JournalLine.appendDecimal(sequence, to: &bytes)
    bytes.append(JournalLine.space)
    var checksum = FNV1a()
    checksum.add(text.utf8)
    JournalLine.appendHex(checksum.value, to: &bytes)
    bytes.append(JournalLine.newline)
    bytes += text.utf8
    return bytes
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
}

extension Station {
  /// A Station whose state survives restarts and crashes: recovered from `durable`'s snapshot and
  /// journal, then recording every action it reduces to it. See ``DurableJournal``.
  ///
  /// A torn last line the recovery ignored, and a state that does not hash as recorded, are
  /// reported as ``Diagnostic``s of the new Station (on standard error, unless a reporter takes
  /// them), and are in ``DurableJournal/recovery``.
  ///
  /// ```swift
  /// let station = try Station.recovering(from: durable, initialState: Todos.State()) { Todos() }
  /// if let torn = durable.recovery?.tornTail { print("note:", torn) }
  /// ```
  ///
  /// - Throws: ``JournalError`` when the folder, the snapshot or the journal cannot be read, is
  ///   corrupt, or an entry does not decode; nothing on disk has changed then.
  public static func recovering<D: Dripper<State, Action>>(
    from durable: DurableJournal<State, Action>,
    initialState: @autoclosure () -> State,
    observers: [DripperObserver<State, Action>] = [],
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws(JournalError) -> Station<State, Action> {
    let feature = dripper()
    let (state, journal) = try durable.recover(
      initialState: initialState, dripper: feature, prepare: prepareDependencies)
    let station = Station(
      initialState: state, observers: observers, dripper: { durable.recording(feature, to: journal) },
      withDependencies: prepareDependencies)
    if let recovery = durable.recovery, let handler = station.rootHandler {
      if let torn = recovery.tornTail { handler.report(Diagnostic(.other, torn)) }
      if let divergence = recovery.divergence {
        handler.report(
          Diagnostic(
            .other,
            "the state recovered from \(durable.directory) differs from the one its journal recorded at entry "
              + "\(divergence.sequence) (\(divergence.action)); the diff is in the recovery's divergence"))
      }
    }
    return station
  }
}
