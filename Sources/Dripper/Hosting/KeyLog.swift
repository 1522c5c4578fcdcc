public import Synchronization

#if canImport(Dispatch)
  import Dispatch
#endif

/// A resident key's entries on their way to its journal, and the gate that holds back what
/// acknowledges them (a receipt, a reply, a read, an effect) until they are durable: Durable
/// Objects' output gate, for a key kept in a folder.
///
/// A reduction appends its entry here synchronously, without waiting for the disk: it is a line
/// added to a buffer under a lock. The host's storage threads write and sync the buffer, many
/// entries and many keys at once (group commit), and move ``durable`` forward. What acknowledges
/// an entry waits for it:
/// - an effect started by the reduction waits until the entry is synced, whatever the durability:
///   an effect that tells the outside world never runs for an action a crash then loses;
/// - a receipt, a reply or a read waits until the entry is durable as the storage's
///   ``JournalDurability`` promises: synced with ``JournalDurability/everyAction``, appended with
///   the others, which accept losing the last entries to a crash.
///
/// A write or a sync that fails fails the key: the entries not written are dropped, every waiter
/// is told, later appends are refused, and the host drops the key's Station, which is read again
/// from disk when the key is next used. Its state in memory never runs ahead of its journal.
@usableFromInline
final class KeyLog: Sendable {
  /// When the storage threads flush the buffer.
  enum Policy: Sendable, Equatable {
    /// At each entry: acknowledgements wait for the sync.
    case eachEntry
    /// Once `count` entries wait, or an effect waits for one.
    case batches(Int)
    /// At most `interval` after an entry, or when an effect waits for one.
    case interval(Duration)

    init(_ durability: JournalDurability) {
      switch durability {
      case .everyAction: self = .eachEntry
      case .everyActions(let count): self = .batches(max(1, count))
      case .interval(let interval): self = .interval(interval)
      }
    }
  }

  typealias SnapshotWrite = @Sendable () -> SnapshotOutcome

  private struct State {
    var file: (any KeySink)?
    var pending: [UInt8] = []
    /// The pours whose entries are in `pending`, for ``failure(of:)``.
    var pendingPours: [PourNumber] = []
    /// The pours whose entries a flush is writing.
    var writingPours: [PourNumber] = []
    /// The last entry appended.
    var appended: UInt64
    var snapshots: [(offset: Int, write: SnapshotWrite)] = []
    /// A flush is queued or running on a storage thread.
    var flushing = false
    /// Flush through this entry at once, whatever the policy: an effect waits for it.
    var wanted: UInt64 = 0
    /// A flush is due at the end of the interval.
    var timerArmed = false
    var failure: JournalError?
    /// The pours whose entries were lost with the failure, or refused after it.
    var failedPours: Set<PourNumber> = []
    var waiters: [(sequence: UInt64, continuation: UnsafeContinuation<JournalError?, Never>)] = []
    var closed = false
    /// Threads closing the log, waiting for the flush under way to write what they left.
    var closers: [DispatchSemaphore] = []
  }

  private let state: Lock<State>
  /// The last entry synced: what effects wait for. Read without the lock on the way of every
  /// acknowledgement.
  private let synced: Atomic<UInt64>
  /// Whether the log failed: read on the way of every reduction.
  @usableFromInline let hasFailed = Atomic<Bool>(false)
  let policy: Policy
  /// Opens the key's journal for a key that had none: its folder is made by the first flush.
  private let open: (@Sendable () -> Result<any KeySink, JournalError>)?
  /// Told once, off the lock, when the log fails.
  private let failed: Lock<(@Sendable (JournalError) -> Void)?>
  private let threads: StorageThreads
  /// The sink, when it writes entries without blocking a thread: flushes then run on a task.
  private let asyncSink: (any AsyncKeySink)?

  /// A log after entry `sequence`, writing to `file`, or, for a key with no journal yet, to the
  /// one `open` makes.
  init(
    sequence: UInt64, file: (any KeySink)?, open: (@Sendable () -> Result<any KeySink, JournalError>)?,
    durability: JournalDurability, threads: StorageThreads = .shared
  ) {
    var initial = State(appended: sequence)
    initial.file = file
    state = Lock(initial)
    synced = Atomic(sequence)
    policy = Policy(durability)
    self.open = open
    self.threads = threads
    asyncSink = file as? any AsyncKeySink
    failed = Lock(nil)
  }

  deinit {
    // A key released without passivating (its host released, as a crash would leave it): its
    // journal is let go of, so that another host can take the key.
    state.withLock { $0.file }?.shutDown(waiting: false)
  }

  /// Calls `body` once, when the log fails (at once if it has).
  func onFailure(_ body: @escaping @Sendable (JournalError) -> Void) {
    let failure = state.withLock { state -> JournalError? in
      if state.failure == nil { failed.withLock { $0 = body } }
      return state.failure
    }
    if let failure { body(failure) }
  }

  // MARK: - Appending

  /// Adds entry `sequence`, the action as `text`, made by `pour`; `false` if the log has failed
  /// (nothing is added).
  @usableFromInline
  func append(sequence: UInt64, text: String, stateHash: UInt64?, pour: PourNumber) -> Bool {
    let (added, flush) = state.withLock { state -> (Bool, FlushStart?) in
      guard state.failure == nil, !state.closed else {
        state.failedPours.insert(pour)
        return (false, nil)
      }
      JournalLine.append(sequence: sequence, action: text, stateHash: stateHash, to: &state.pending)
      state.pendingPours.append(pour)
      state.appended = sequence
      return (true, start(&state))
    }
    if let flush { run(flush) }
    return added
  }

  /// Writes a snapshot with `write` once every entry appended so far is synced (see
  /// ``JournalFile/snapshot(_:)``).
  func snapshot(_ write: @escaping SnapshotWrite) {
    let flush = state.withLock { state -> FlushStart? in
      guard state.failure == nil, !state.closed else { return nil }
      state.snapshots.append((state.pending.count, write))
      return start(&state)
    }
    if let flush { run(flush) }
  }

  /// The pour's failure, if its entry, or an entry an action of its effects made, was lost.
  func failure(of pour: PourNumber) -> JournalError? {
    state.withLock { state in state.failedPours.contains(pour) ? state.failure : nil }
  }

  // MARK: - Waiting

  /// Returns once entry `sequence` is synced, or the log failed (with its error).
  func synced(through sequence: UInt64) async -> JournalError? {
    if synced.load(ordering: .acquiring) >= sequence { return nil }
    return await wait(for: sequence, wanting: true)
  }

  /// Returns once entry `sequence` is as durable as the storage promises before it acknowledges
  /// it, or the log failed (with its error).
  func acknowledged(through sequence: UInt64) async -> JournalError? {
    if policy == .eachEntry { return await synced(through: sequence) }
    return hasFailed.load(ordering: .relaxed) ? state.withLock { $0.failure } : nil
  }

  /// Returns once the entries of `pour` are as durable as the storage promises before it
  /// acknowledges them (see ``acknowledged(through:)``): what a ``PourTask``'s `finish()` waits
  /// for last, after the pour's effects.
  func acknowledged(pour: PourNumber) async {
    let through = state.withLock { state -> UInt64? in
      state.pendingPours.contains(pour) || state.writingPours.contains(pour) ? state.appended : nil
    }
    if let through { _ = await acknowledged(through: through) }
  }

  /// Returns once every entry appended so far is as durable as the storage promises.
  func acknowledgedAll() async -> JournalError? {
    await acknowledged(through: state.withLock { $0.appended })
  }

  private func wait(for sequence: UInt64, wanting: Bool) async -> JournalError? {
    await withUnsafeContinuation { continuation in
      let (resume, flush) = state.withLock { state -> (JournalError??, FlushStart?) in
        if let failure = state.failure { return (.some(failure), nil) }
        if synced.load(ordering: .relaxed) >= sequence { return (.some(nil), nil) }
        state.waiters.append((sequence, continuation))
        if wanting { state.wanted = max(state.wanted, sequence) }
        return (nil, start(&state))
      }
      if let resume { continuation.resume(returning: resume) }
      if let flush { run(flush) }
    }
  }

  // MARK: - Flushing

  /// What starts a flush: at once, or at the end of the interval.
  private enum FlushStart {
    case now
    case after(Duration)
  }

  /// Whether a flush must start now, decided under the lock; marks it started.
  private func start(_ state: inout State) -> FlushStart? {
    guard !state.flushing, state.failure == nil else { return nil }
    if isDue(state) {
      state.flushing = true
      return .now
    }
    if case .interval(let interval) = policy, !state.pending.isEmpty, !state.timerArmed {
      state.timerArmed = true
      return .after(interval)
    }
    return nil
  }

  private func isDue(_ state: State) -> Bool {
    if state.closed || state.wanted > synced.load(ordering: .relaxed) { return true }
    if state.pending.isEmpty && state.snapshots.isEmpty { return false }
    switch policy {
    case .eachEntry: return true
    case .batches(let count): return state.pendingPours.count >= count
    case .interval: return false
    }
  }

  private func run(_ start: FlushStart) {
    switch start {
    case .now:
      // A sink that writes without blocking a thread is flushed from a task.
      if let asyncSink {
        Task { await flushWhileDue(to: asyncSink) }
      } else {
        threads.run { [self] in flushWhileDue() }
      }
    case .after(let interval):
      let (seconds, attoseconds) = interval.components
      let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
      DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(max(1, nanoseconds))) { [self] in
        let flush = state.withLock { state -> Bool in
          state.timerArmed = false
          guard !state.flushing, state.failure == nil, !state.pending.isEmpty || !state.snapshots.isEmpty
          else { return false }
          state.flushing = true
          return true
        }
        if flush { threads.run { [self] in flushWhileDue(force: true) } }
      }
    }
  }

  /// What a flush writes at once: the entries appended since the last, the snapshots after them,
  /// and the sink.
  private struct Batch {
    let bytes: [UInt8]
    let snapshots: [(offset: Int, write: SnapshotWrite)]
    let pours: [PourNumber]
    let through: UInt64
    let file: any KeySink
  }

  /// Writes and syncs the buffer, again while more is due: what comes in during a sync goes in the
  /// next, together. On a storage thread.
  private func flushWhileDue(force: Bool = false) {
    var force = force
    while let batch = nextBatch(force: force) {
      force = false
      if let error = batch.file.write(batch.bytes, snapshots: batch.snapshots[...]).failure {
        return fail(error, losing: batch.pours)
      }
      written(batch)
    }
  }

  /// ``flushWhileDue(force:)`` for a sink that writes entries without blocking a thread (a key of
  /// a ``KeyStore``): a batch of entries alone is written from this task; one with a snapshot, which
  /// blocks, on a storage thread.
  private func flushWhileDue(to sink: any AsyncKeySink) async {
    while let batch = nextBatch(force: false) {
      let failure: JournalError?
      if batch.snapshots.isEmpty {
        failure = await sink.writeEntries(batch.bytes)
      } else {
        failure = await withUnsafeContinuation { continuation in
          threads.run {
            continuation.resume(
              returning: batch.file.write(batch.bytes, snapshots: batch.snapshots[...]).failure)
          }
        }
      }
      if let failure { return fail(failure, losing: batch.pours) }
      written(batch)
    }
  }

  /// The next batch to write, taken from the buffer; `nil` when nothing more is due, which ends
  /// the flush (and lets the log's closers go on). The sink is opened if the key had none.
  private func nextBatch(force: Bool) -> Batch? {
    let taken = state.withLock {
      state -> (
        bytes: [UInt8], snapshots: [(offset: Int, write: SnapshotWrite)], pours: [PourNumber],
        through: UInt64, file: (any KeySink)?
      )? in
      guard state.failure == nil, force || isDue(state),
        !state.pending.isEmpty || !state.snapshots.isEmpty
      else {
        state.flushing = false
        for closer in state.closers { closer.signal() }
        state.closers = []
        return nil
      }
      defer {
        state.pending = []
        state.writingPours = state.pendingPours
        state.pendingPours = []
        state.snapshots = []
      }
      return (state.pending, state.snapshots, state.pendingPours, state.appended, state.file)
    }
    guard let taken else { return nil }
    var file = taken.file
    if file == nil, let open {
      switch open() {
      case .success(let opened):
        file = opened
        state.withLock { $0.file = opened }
      case .failure(let error):
        fail(error, losing: taken.pours)
        return nil
      }
    }
    guard let file else {
      fail(JournalError("a key's journal is missing"), losing: taken.pours)
      return nil
    }
    return Batch(
      bytes: taken.bytes, snapshots: taken.snapshots, pours: taken.pours, through: taken.through, file: file)
  }

  /// `batch` is durable: its waiters are let go.
  private func written(_ batch: Batch) {
    let waiters = state.withLock { state in
      synced.store(batch.through, ordering: .releasing)
      state.writingPours = []
      let (ready, waiting) = state.waiters.partitioned { $0.sequence <= batch.through }
      state.waiters = waiting
      return ready
    }
    for waiter in waiters { waiter.continuation.resume(returning: nil) }
  }

  /// The log failed with `error`: what waited is dropped and told, and the host with it.
  private func fail(_ error: JournalError, losing pours: [PourNumber]) {
    let (waiters, file, tell) = state.withLock { state in
      state.failure = error
      hasFailed.store(true, ordering: .releasing)
      state.failedPours.formUnion(pours)
      state.failedPours.formUnion(state.pendingPours)
      state.pending = []
      state.pendingPours = []
      state.writingPours = []
      state.snapshots = []
      state.flushing = false
      for closer in state.closers { closer.signal() }
      state.closers = []
      defer { state.waiters = [] }
      return (
        state.waiters, state.file,
        failed.withLock { body in
          defer { body = nil }
          return body
        }
      )
    }
    // What the file holds is what was synced: a failed write cut it back.
    file?.shutDown(waiting: true)
    for waiter in waiters { waiter.continuation.resume(returning: error) }
    tell?(error)
  }

  // MARK: - Closing

  /// Writes what waits and `snapshot`, then closes the journal: a key passivating. Blocks: call it
  /// on a storage thread. The error of the last write, if any.
  func close(snapshot: SnapshotWrite?) -> JournalError? {
    let drained = DispatchSemaphore(value: 0)
    let flushHere = state.withLock { state -> Bool in
      state.closed = true
      if let snapshot { state.snapshots.append((state.pending.count, snapshot)) }
      guard state.flushing else {
        state.flushing = true
        return true
      }
      // The flush under way writes what is left, in order, before it stops.
      state.closers.append(drained)
      return false
    }
    if flushHere { flushWhileDue(force: true) } else { drained.wait() }
    let (file, failure) = state.withLock { ($0.file, $0.failure) }
    if let failure { return failure }
    guard let file else { return nil }
    return file.shutDown(waiting: true) ?? file.takeNotes().first.map(JournalError.init)
  }

  /// The key's journal file, once it has one (a key kept in a folder).
  var file: JournalFile? { state.withLock { $0.file } as? JournalFile }

  /// Whether the key has a journal on disk (or is about to: a flush of its first entries).
  var hasJournal: Bool { state.withLock { $0.file != nil || $0.appended > 0 } }
}

extension Array {
  /// The elements for which `belongs` is true, and the others, each in order.
  func partitioned(_ belongs: (Element) -> Bool) -> (matching: [Element], others: [Element]) {
    var matching: [Element] = []
    var others: [Element] = []
    for element in self {
      if belongs(element) { matching.append(element) } else { others.append(element) }
    }
    return (matching, others)
  }
}
