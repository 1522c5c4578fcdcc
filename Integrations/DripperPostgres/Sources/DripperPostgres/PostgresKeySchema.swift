import Dripper
import Logging
import PostgresNIO

/// The tables of a ``PostgresKeyStore``, and their version.
///
/// Version 1:
/// - `dripper_schema (id, version)`: one row, the version of the tables below;
/// - `dripper_keys (key bytea PRIMARY KEY, epoch, owner, last_sequence, reminder)`: a row a key
///   written, its owner's epoch, its last entry, its earliest reminder in seconds since 1970,
///   indexed;
/// - `dripper_entries (key, sequence, schema, bytes)`, `PRIMARY KEY (key, sequence)`: the entries
///   since the key's snapshot (a snapshot deletes those it holds);
/// - `dripper_snapshots (key PRIMARY KEY, sequence, bytes)`: each key's last snapshot, its
///   `JournalSchema` version in its bytes.
///
/// Request ids, their receipts and replies are part of each key's state (the host's request
/// window), so they are in its snapshot and entries, bounded as the window is.
///
/// Beside the tables, the procedure `dripper_write_v1`: a batch of writes, committed inside the
/// call (see ``PostgresKeyStore``), so that its answer comes only once the commit is durable, in
/// one round trip. It is code, not data: it changes no table, and its name carries its own
/// version. A program that does not know it (an earlier one of this version of the tables)
/// neither uses nor minds it; ``PostgresKeyStore/prepare()`` makes it where it is missing, as in a
/// database an earlier program made.
///
/// A database whose tables a newer version made is refused, changed in nothing: the program must
/// be the newer one. An older version is migrated forward in one transaction.
public enum PostgresKeySchema {
  /// The version this program writes.
  public static let version = 1

  static func prepare(_ client: PostgresClient, logger: Logger) async throws(JournalError) {
    do {
      try await client.withTransaction(logger: logger) { connection in
        // Nodes starting together create the tables once.
        try await connection.query("SELECT pg_advisory_xact_lock(4242001)", logger: logger)
        try await connection.query(
          """
          CREATE TABLE IF NOT EXISTS dripper_schema (
            id integer PRIMARY KEY CHECK (id = 1), version integer NOT NULL)
          """, logger: logger)
        let found = try await connection.query(
          "SELECT version FROM dripper_schema WHERE id = 1", logger: logger
        ).decode(Int32.self).first { _ in true }
        if let found, Int(found) > version {
          throw JournalError(
            "PostgreSQL: the database's Dripper tables are of version \(found), newer than this program's \(version): "
              + "they are left as they are (run the newer program)")
        }
        if found == nil {
          for statement in tables {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
          }
          try await connection.query(
            "INSERT INTO dripper_schema (id, version) VALUES (1, \(Int32(version)))", logger: logger)
        }
        let procedure = try await connection.query(
          PostgresQuery(unsafeSQL: "SELECT to_regprocedure('\(writeProcedureSignature)') IS NOT NULL"),
          logger: logger
        ).decode(Bool.self).first { _ in true }
        if procedure != true {
          try await connection.query(PostgresQuery(unsafeSQL: writeProcedure), logger: logger)
        }
      }
    } catch {
      throw PostgresKeyStore.journalError(error, doing: "prepare the tables")
    }
  }

  static let tables = [
    """
    CREATE TABLE dripper_keys (
      key bytea PRIMARY KEY, epoch bigint NOT NULL, owner text,
      last_sequence bigint NOT NULL, reminder double precision)
    """,
    "CREATE INDEX dripper_keys_reminder ON dripper_keys (reminder) WHERE reminder IS NOT NULL",
    """
    CREATE TABLE dripper_entries (
      key bytea NOT NULL, sequence bigint NOT NULL, schema integer NOT NULL, bytes bytea NOT NULL,
      PRIMARY KEY (key, sequence))
    """,
    "CREATE TABLE dripper_snapshots (key bytea PRIMARY KEY, sequence bigint NOT NULL, bytes bytea NOT NULL)",
  ]

  /// The procedure's name and the types of its arguments, as `to_regprocedure` reads them.
  static let writeProcedureSignature =
    "dripper_write_v1(bytea[], bigint[], bigint[], bigint[], float8[], bytea[], bigint[], integer[], bytea[], bytea[], bigint[], bytea[], bytea[])"

  /// The largest batch of writes run with the statement's generic plan.
  static let genericPlanBatch = 16

  /// A batch of writes: ``write``, in a transaction the procedure commits itself before it
  /// returns the keys accepted (`NULL` for none), so that its caller's answer follows the
  /// commit. A batch of several keys first locks their rows in key order, as a batch of claims
  /// does: the statement's update locks them in the order of its plan, and a claim batch and a
  /// write batch of the same keys, or two write batches, each holding a row the other waits for,
  /// would deadlock (PostgreSQL then fails one of them). A small batch runs the statement's
  /// generic plan: left to choose, PostgreSQL plans it afresh at every call (its custom plans look
  /// cheaper), about 0.4 ms of planning for 0.15 ms of running for one key (`EXPLAIN ANALYZE`); a
  /// large batch, whose planning its keys share, is planned for its size. `SET LOCAL` ends with
  /// the transaction. A procedure that commits may not be declared with `SET` clauses, hence the
  /// statement.
  static let writeProcedure = """
    CREATE PROCEDURE dripper_write_v1(
      bytea[], bigint[], bigint[], bigint[], float8[], bytea[], bigint[], integer[], bytea[],
      bytea[], bigint[], bytea[], INOUT written bytea[] DEFAULT NULL)
    LANGUAGE plpgsql AS $procedure$
    BEGIN
      IF cardinality($1) > 1 THEN
        PERFORM 1 FROM dripper_keys WHERE key = ANY($1) ORDER BY key FOR UPDATE;
      END IF;
      IF cardinality($1) <= \(genericPlanBatch) THEN
        SET LOCAL plan_cache_mode = force_generic_plan;
      END IF;
      \(write)
      SELECT array_agg(key) FROM accepted INTO written;
      COMMIT;
    END
    $procedure$
    """

  /// One batch of writes, one statement. A write is accepted if its key is new and it is the
  /// key's first (epoch 1, entries from 1), or if the key's epoch is the write's and its last
  /// entry the one before the write's first (or, for a snapshot alone, at or after the snapshot).
  /// The key's row is locked by the update until the commit: a claim waits for it, and a write
  /// waiting on a claim finds the epoch changed and is refused. Only accepted keys' entries and
  /// snapshots are inserted; the keys accepted are `accepted`, which the procedure reads.
  static let write = """
    WITH w AS (
      SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bigint[], $4::bigint[], $5::float8[])
        AS w(key, epoch, after, last, reminder)
    ),
    created AS (
      INSERT INTO dripper_keys (key, epoch, last_sequence, reminder)
      SELECT key, 1, last, NULLIF(reminder, 'NaN'::float8) FROM w WHERE epoch = 1 AND after = 0 AND last > 0
      ON CONFLICT (key) DO NOTHING
      RETURNING key
    ),
    updated AS (
      UPDATE dripper_keys k
      SET last_sequence = GREATEST(k.last_sequence, w.last), reminder = NULLIF(w.reminder, 'NaN'::float8)
      FROM w
      WHERE k.key = w.key AND k.epoch = w.epoch
        AND (k.last_sequence = w.after OR (w.after = -1 AND k.last_sequence >= w.last))
      RETURNING k.key
    ),
    accepted AS (SELECT key FROM created UNION ALL SELECT key FROM updated),
    entries AS (
      INSERT INTO dripper_entries (key, sequence, schema, bytes)
      SELECT e.key, e.sequence, e.schema, e.bytes
      FROM unnest($6::bytea[], $7::bigint[], $8::integer[], $9::bytea[]) AS e(key, sequence, schema, bytes)
      WHERE e.key IN (SELECT key FROM accepted)
    ),
    snapshots AS (
      INSERT INTO dripper_snapshots (key, sequence, bytes)
      SELECT s.key, s.sequence, s.bytes
      FROM unnest($10::bytea[], $11::bigint[], $12::bytea[]) AS s(key, sequence, bytes)
      WHERE s.key IN (SELECT key FROM accepted)
      ON CONFLICT (key) DO UPDATE SET sequence = excluded.sequence, bytes = excluded.bytes
    ),
    pruned AS (
      DELETE FROM dripper_entries d
      USING unnest($10::bytea[], $11::bigint[]) AS s(key, sequence)
      WHERE d.key = s.key AND d.sequence <= s.sequence AND s.key IN (SELECT key FROM accepted)
    )
    """
}
