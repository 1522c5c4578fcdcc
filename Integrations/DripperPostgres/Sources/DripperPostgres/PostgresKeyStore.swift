public import Dripper
public import Logging
public import PostgresNIO
import Synchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A ``KeyStore`` in PostgreSQL, on postgres-nio: the nodes of a cluster share it, and every write
/// is fenced by its key's epoch.
///
/// ```swift
/// let client = PostgresClient(configuration: .init(host: "127.0.0.1", username: "app", password: nil, database: "app", tls: .disable))
/// let store = PostgresKeyStore(client: client)
/// try await withThrowingDiscardingTaskGroup { group in
///   group.addTask { await client.run() }
///   try await store.prepare()   // creates the tables and the write procedure, or checks them
///   let host = try StationHost<String, Wallet>(storage: .store(store, codec: .json, node: "node-a")) …
/// }
/// ```
///
/// The tables (see ``PostgresKeySchema``): `dripper_keys`, a row a key with its epoch, owner, last
/// entry and earliest reminder; `dripper_entries`, a row an entry, keyed by (key, sequence);
/// `dripper_snapshots`, a row a key. Keys are `bytea`: any text, NUL and quotes included, is data.
/// Every statement binds its values; none is built from them.
///
/// Writes arriving together, of many keys, go in one call of a procedure that runs one statement
/// and commits it, one flush of the server's WAL (group commit), and each is acknowledged once that
/// transaction has committed.
/// With PostgreSQL's `synchronous_commit` on (its default), a commit is on the server's disk;
/// with it `off`, a crash of the server may lose the last writes it acknowledged.
public final class PostgresKeyStore: KeyStore {
  let client: PostgresClient
  let logger: Logger
  /// The most entries a claim reads of one key: a key with more since its snapshot is refused.
  public let maximumEntries: Int
  /// How long a claim or a write may take before it fails (its key is then read again).
  public let timeout: Duration
  private let writes: Batcher<KeyWrite, JournalError?>
  private let claims: Batcher<Claim, Result<StoredKey, JournalError>>

  /// A store on `client`, which the caller runs (`client.run()`).
  ///
  /// - Parameters:
  ///   - client: The connection pool.
  ///   - maximumBatch: The most writes, or claims, one transaction holds.
  ///   - concurrentWrites: How many transactions of writes run at once, and of claims.
  ///   - maximumEntries: The most entries a claim reads of one key.
  ///   - timeout: How long a claim or a write may take before it fails: a write whose
  ///     connection was lost without an answer (the server restarted) fails then, and its key is
  ///     read again; whether it committed, the read says.
  ///   - logger: Where postgres-nio logs the store's statements.
  public init(
    client: PostgresClient, maximumBatch: Int = 1_000, concurrentWrites: Int = 2,
    maximumEntries: Int = 1_000_000,
    timeout: Duration = .seconds(10),
    logger: Logger = Logger(label: "dripper.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.client = client
    self.logger = logger
    self.maximumEntries = maximumEntries
    self.timeout = timeout
    writes = Batcher(maximumBatch: maximumBatch, concurrent: concurrentWrites)
    claims = Batcher(maximumBatch: maximumBatch, concurrent: concurrentWrites)
  }

  /// Creates the store's tables if they are missing, or checks that they are of this version;
  /// then makes the procedure that writes batches (``PostgresKeySchema``) if it is missing, as in
  /// a database an earlier Dripper made, which needs the right to create it once.
  ///
  /// - Throws: a ``JournalError`` when the database holds a newer schema (a newer Dripper made
  ///   it: this one refuses it, changing nothing), when the procedure cannot be made, or when the
  ///   database cannot be reached.
  public func prepare() async throws(JournalError) {
    try await PostgresKeySchema.prepare(client, logger: logger)
  }

  /// Claims `key` for `owner`: its epoch goes up by one, in the same transaction that reads its
  /// snapshot and the entries after it, so no write of an earlier claim lands after the read.
  /// Claims arriving together are made in one transaction (a burst of new keys has many).
  public func claim(_ key: String, owner: String) async throws(JournalError) -> StoredKey {
    try await claims.submit(Claim(key: key, owner: owner), key: key) { [self] in await claim($0) }.get()
  }

  /// A claim waiting for its batch.
  struct Claim: Sendable {
    let key: String
    let owner: String
  }

  /// Makes a batch of claims in one transaction. The keys' rows are locked first, in the keys'
  /// order, so that two batches never deadlock and no write lands after the read; then their
  /// snapshots and entries are read, and the epochs raised of the keys within the limit. A key
  /// with more entries fails, its epoch unchanged.
  private func claim(_ batch: [Claim]) async -> [Result<StoredKey, JournalError>] {
    let (limit, client, logger) = (maximumEntries, self.client, self.logger)
    do {
      let found = try await Deadline.run(within: timeout) {
        try await Self.claim(batch, limit: limit, client: client, logger: logger)
      }
      return batch.map { claim in
        guard let stored = found[Array(claim.key.utf8)] else { return .success(StoredKey(epoch: 1)) }
        guard stored.entries.count <= limit else {
          return .failure(
            JournalError(
              "key \(claim.key): more than \(limit) entries since its snapshot; a claim reads no more"))
        }
        return .success(stored)
      }
    } catch {
      let what = batch.count == 1 ? "claim key \(batch[0].key)" : "claim \(batch.count) keys"
      let failure = Self.journalError(error, doing: what)
      return batch.map { _ in .failure(failure) }
    }
  }

  /// What the keys of `batch` that exist hold, by their bytes: claimed, or, with more than
  /// `limit` entries, read and left as they were.
  private static func claim(
    _ batch: [Claim], limit: Int, client: PostgresClient, logger: Logger
  ) async throws -> [[UInt8]: StoredKey] {
    let names = batch.map { ByteBuffer(string: $0.key) }
    let owners = Dictionary(batch.map { (Array($0.key.utf8), $0.owner) }) { first, _ in first }
    return try await client.withTransaction(logger: logger) { connection in
      var found: [[UInt8]: StoredKey] = [:]
      let locked = try await connection.query(
        "SELECT key FROM dripper_keys WHERE key = ANY(\(names)) ORDER BY key FOR UPDATE", logger: logger)
      for try await key in locked.decode(ByteBuffer.self) { found[Array(buffer: key)] = StoredKey(epoch: 0) }
      guard !found.isEmpty else { return found }
      let keys = found.keys.map { ByteBuffer(bytes: $0) }
      let snapshots = try await connection.query(
        "SELECT key, sequence, bytes FROM dripper_snapshots WHERE key = ANY(\(keys))", logger: logger)
      for try await (key, sequence, bytes) in snapshots.decode((ByteBuffer, Int64, ByteBuffer).self) {
        found[Array(buffer: key)]?.snapshot = StoredSnapshot(
          sequence: UInt64(sequence), bytes: Array(buffer: bytes))
      }
      let afters = keys.map { Int64(found[Array(buffer: $0)]?.snapshot?.sequence ?? 0) }
      let entries = try await connection.query(
        """
        SELECT c.key, e.sequence, e.schema, e.bytes
        FROM unnest(\(keys)::bytea[], \(afters)::bigint[]) AS c(key, after)
        CROSS JOIN LATERAL (
          SELECT sequence, schema, bytes FROM dripper_entries d
          WHERE d.key = c.key AND d.sequence > c.after ORDER BY d.sequence LIMIT \(Int64(limit + 1))
        ) e
        """, logger: logger)
      for try await (key, sequence, schema, bytes) in entries.decode(
        (ByteBuffer, Int64, Int32, ByteBuffer).self)
      {
        found[Array(buffer: key)]?.entries.append(
          StoredEntry(sequence: UInt64(sequence), schema: Int(schema), bytes: Array(buffer: bytes)))
      }
      let within = found.filter { $0.value.entries.count <= limit }.keys
      guard !within.isEmpty else { return found }
      let claimed = try await connection.query(
        """
        UPDATE dripper_keys k SET epoch = k.epoch + 1, owner = c.owner
        FROM unnest(\(within.map { ByteBuffer(bytes: $0) })::bytea[], \(within.map { owners[$0] ?? "" })::text[])
          AS c(key, owner)
        WHERE k.key = c.key
        RETURNING k.key, k.epoch, k.reminder
        """, logger: logger)
      for try await (key, epoch, reminder) in claimed.decode((ByteBuffer, Int64, Double?).self) {
        let bytes = Array(buffer: key)
        found[bytes]?.epoch = UInt64(epoch)
        found[bytes]?.reminder = reminder.map(Date.init(timeIntervalSince1970:))
      }
      for key in found.keys { found[key]?.entries.sort { $0.sequence < $1.sequence } }
      return found
    }
  }

  /// Whether `key` was written: a row in `dripper_keys`.
  public func exists(_ key: String) async throws(JournalError) -> Bool {
    do {
      let rows = try await client.query(
        "SELECT 1 FROM dripper_keys WHERE key = \(ByteBuffer(string: key))", logger: logger)
      return try await rows.decode(Int32.self).first { _ in true } != nil
    } catch {
      throw Self.journalError(error, doing: "read key \(key)")
    }
  }

  /// Writes `writes` with the others waiting (see ``PostgresKeyStore``), each once it has
  /// committed or been refused.
  public func write(_ writes: [KeyWrite]) async -> [JournalError?] {
    let run: @Sendable ([KeyWrite]) async -> [JournalError?] = { [self] in await commit($0) }
    // A key's log writes one at a time: no task for it.
    if writes.count == 1, let write = writes.first {
      return [await self.writes.submit(write, key: write.key, run: run)]
    }
    return await withTaskGroup(of: (Int, JournalError?).self) { group in
      for (offset, write) in writes.enumerated() {
        group.addTask { (offset, await self.writes.submit(write, key: write.key, run: run)) }
      }
      var results = [JournalError?](repeating: nil, count: writes.count)
      for await (offset, error) in group { results[offset] = error }
      return results
    }
  }

  /// The keys whose reminders are due by `date`, from the index on `dripper_keys.reminder`,
  /// ordered by due time and then by the key's bytes; with `after`, those after it in that order.
  public func reminders(dueBy date: Date, after: StoredReminder?, limit: Int) async throws(JournalError)
    -> [StoredReminder]
  {
    do {
      let dueBy = date.timeIntervalSince1970
      let limit = max(0, limit)
      let rows =
        if let after {
          try await client.query(
            """
            SELECT key, reminder FROM dripper_keys WHERE reminder <= \(dueBy)
            AND (reminder, key) > (\(after.due.timeIntervalSince1970), \(ByteBuffer(string: after.key)))
            ORDER BY reminder, key LIMIT \(limit)
            """, logger: logger)
        } else {
          try await client.query(
            """
            SELECT key, reminder FROM dripper_keys WHERE reminder <= \(dueBy)
            ORDER BY reminder, key LIMIT \(limit)
            """, logger: logger)
        }
      var due: [StoredReminder] = []
      for try await (key, seconds) in rows.decode((ByteBuffer, Double).self) {
        due.append(StoredReminder(key: String(buffer: key), due: Date(timeIntervalSince1970: seconds)))
      }
      return due
    } catch {
      throw Self.journalError(error, doing: "list the reminders due")
    }
  }

  /// Commits a batch of writes: one answer each, `nil` for a write that committed.
  private func commit(_ batch: [KeyWrite]) async -> [JournalError?] {
    do {
      let accepted = try await Deadline.run(within: timeout) { try await self.commitAll(batch) }
      return batch.map { write in
        accepted.contains(Array(write.key.utf8))
          ? nil
          : JournalError.heldElsewhere(
            key: write.key,
            "a write at epoch \(write.epoch) after entry \(write.entries.first.map { $0.sequence - 1 } ?? 0) was refused"
          )
      }
    } catch {
      let failure = Self.journalError(error, doing: "write \(batch.count) keys")
      return batch.map { _ in failure }
    }
  }

  /// Writes a batch in one statement: the keys whose epoch and last entry match are advanced, and
  /// only their entries, snapshots and reminders are kept. Returns the keys accepted.
  private func commitAll(_ batch: [KeyWrite]) async throws -> Set<[UInt8]> {
    // In key order, as claims lock them: see the lock below.
    let batch = batch.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    var keys: [ByteBuffer] = []
    var epochs: [Int64] = []
    var afters: [Int64] = []
    var lasts: [Int64] = []
    var reminders: [Double] = []
    var entryKeys: [ByteBuffer] = []
    var sequences: [Int64] = []
    var schemas: [Int32] = []
    var entryBytes: [ByteBuffer] = []
    var snapshotKeys: [ByteBuffer] = []
    var snapshotSequences: [Int64] = []
    var snapshotBytes: [ByteBuffer] = []
    for write in batch {
      let key = ByteBuffer(string: write.key)
      keys.append(key)
      epochs.append(Int64(clamping: write.epoch))
      if let first = write.entries.first, let last = write.entries.last {
        afters.append(Int64(clamping: first.sequence) - 1)
        lasts.append(Int64(clamping: last.sequence))
      } else {
        // A snapshot alone: of an entry the key holds.
        afters.append(-1)
        lasts.append(Int64(clamping: write.snapshot?.sequence ?? 0))
      }
      reminders.append(write.reminder?.timeIntervalSince1970 ?? .nan)
      for entry in write.entries {
        entryKeys.append(key)
        sequences.append(Int64(clamping: entry.sequence))
        schemas.append(Int32(clamping: entry.schema))
        entryBytes.append(ByteBuffer(bytes: entry.bytes))
      }
      if let snapshot = write.snapshot {
        snapshotKeys.append(key)
        snapshotSequences.append(Int64(clamping: snapshot.sequence))
        snapshotBytes.append(ByteBuffer(bytes: snapshot.bytes))
      }
    }
    var binds = PostgresBindings()
    binds.append(keys)
    binds.append(epochs)
    binds.append(afters)
    binds.append(lasts)
    binds.append(reminders)
    binds.append(entryKeys)
    binds.append(sequences)
    binds.append(schemas)
    binds.append(entryBytes)
    binds.append(snapshotKeys)
    binds.append(snapshotSequences)
    binds.append(snapshotBytes)
    // A write is acknowledged only once PostgreSQL has committed it. A statement outside a
    // transaction is answered (its rows, its CommandComplete) before PostgreSQL commits it at the
    // protocol's Sync, and postgres-nio ends the rows at that answer: a server stopping, or a
    // deferred check failing, between the two would undo a write already acknowledged. So the
    // batch is a call of the procedure `dripper_write_v1`, which commits inside the call and only
    // then returns the keys accepted: one round trip, answered after the commit, its error (a
    // deferred check's, say) the call's own. BEGIN, the statement and COMMIT took three, four
    // with the `SET LOCAL` of the generic plan, and each costs about 0.1 ms through postgres-nio.
    // The locking order and the plan of a batch are the procedure's (see ``PostgresKeySchema``).
    var accepted: Set<[UInt8]> = []
    for try await keys in try await client.execute(WriteStatement(binds: binds), logger: logger) {
      for key in keys ?? [] { accepted.insert(Array(buffer: key)) }
    }
    return accepted
  }

  /// A one-line error of what the store could not do.
  static func journalError(_ error: any Error, doing what: String) -> JournalError {
    if let error = error as? JournalError { return error }
    if let transaction = error as? PostgresTransactionError,
      let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError
        ?? transaction.rollbackError
    {
      return journalError(cause, doing: what)
    }
    if let error = error as? PSQLError {
      let message = error.serverInfo?[.message].map { ": \($0)" } ?? ""
      return JournalError("PostgreSQL: could not \(what): \(error.code)\(message)")
    }
    return JournalError("PostgreSQL: could not \(what): \(error)")
  }
}

/// The call of a batch of writes (see ``PostgresKeySchema``), prepared once a connection: its row
/// is the keys accepted, `NULL` for none.
struct WriteStatement: PostgresPreparedStatement {
  typealias Row = [ByteBuffer]?
  static let name = "dripper_write_2"
  static let sql = "CALL dripper_write_v1($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, NULL)"
  let binds: PostgresBindings

  func makeBindings() -> PostgresBindings { binds }
  func decodeRow(_ row: PostgresRow) throws -> [ByteBuffer]? { try row.decode([ByteBuffer]?.self) }
}

/// Runs an operation that may never answer (a query on a connection lost without a word) with a
/// deadline: its caller is answered at the deadline, and the operation is cancelled and left to
/// end on its own.
enum Deadline {
  struct Passed: Error, CustomStringConvertible {
    let after: Duration
    var description: String { "no answer within \(after)" }
  }

  static func run<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
  {
    let answered = Mutex(false)
    let tasks = Mutex<[Task<Void, Never>]>([])
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      let answer = { @Sendable (result: Result<T, any Error>) in
        let first = answered.withLock { answered in
          defer { answered = true }
          return !answered
        }
        guard first else { return }
        continuation.resume(with: result)
        for task in tasks.withLock({ $0 }) { task.cancel() }
      }
      let work = Task { answer(await Result(catching: operation)) }
      let timer = Task {
        try? await Task.sleep(for: limit)
        if !Task.isCancelled { answer(.failure(Passed(after: limit))) }
      }
      tasks.withLock { $0 = [work, timer] }
      if answered.withLock({ $0 }) {
        work.cancel()
        timer.cancel()
      }
    }
  }
}

extension Result where Failure == any Error {
  /// The result of an async throwing body.
  init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}
