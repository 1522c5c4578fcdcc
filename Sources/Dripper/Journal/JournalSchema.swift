/// The version of the types a durable journal writes, and how to read what an older version wrote:
/// what lets a deploy change `State` or `Action` without losing what was recorded.
///
/// ```swift
/// let schema = JournalSchema<Cart.State, Cart.Action>(version: 2) { text, version in
///   let old = try JSONDecoder().decode(CartV1.State.self, from: Data(text.utf8))   // version is 1
///   return Cart.State(items: old.items, currency: "EUR")
/// } migrateAction: { text, version in
///   try CartV1.Action.decoded(text).upgraded
/// }
/// let durable = DurableJournal(directory: "state/cart", codec: .json, schema: schema)
/// ```
///
/// A journal and a snapshot record the version they were written under. Recovery decodes what the
/// current version wrote with the codec, and hands what an older one wrote to the migrations, with
/// the version that wrote it: the snapshot to `migrateState`, each entry after it to
/// `migrateAction`. Once everything is read, the state is written as a snapshot of the current
/// version and the journal starts again under it, so an old entry is migrated once.
///
/// Refused, with a ``JournalError`` for that folder and nothing changed on disk:
/// - a journal or a snapshot of a **newer** version than the program's (an older program running
///   after a newer one: a rolled-back deploy);
/// - a migration that throws.
///
/// Version 1 writes the files as a journal without a schema does, so an existing journal is of
/// version 1, and a program of version 1 reads journals that older Dripper versions wrote and
/// writes journals they read. A later version's files name it in their first line, which a Dripper
/// older than schemas refuses as not a journal, changing nothing.
public struct JournalSchema<State: Sendable, Action: Sendable>: Sendable {
  /// The version the program writes: 1 or more.
  public var version: Int
  /// The state from a snapshot written under an older version (the second argument).
  public var migrateState: @Sendable (_ text: String, _ version: Int) throws -> State
  /// An action from an entry written under an older version (the second argument).
  public var migrateAction: @Sendable (_ text: String, _ version: Int) throws -> Action

  /// A schema of `version`, with the migrations from older ones.
  public init(
    version: Int,
    migrateState: @escaping @Sendable (_ text: String, _ version: Int) throws -> State,
    migrateAction: @escaping @Sendable (_ text: String, _ version: Int) throws -> Action
  ) {
    self.version = max(1, version)
    self.migrateState = migrateState
    self.migrateAction = migrateAction
  }

  /// Version 1: nothing older to migrate.
  public static var initial: Self {
    Self(
      version: 1,
      migrateState: { _, version in throw JournalError("no migration from schema version \(version)") },
      migrateAction: { _, version in throw JournalError("no migration from schema version \(version)") })
  }
}

extension JournalSchema {
  /// Why a file of `found` cannot be read by this schema: it is newer.
  func refusal(of path: String, found: Int) -> JournalError? {
    guard found > version else { return nil }
    return JournalError(
      "\(path) was written under schema version \(found), newer than this program's \(version): it is left "
        + "as it is (run the newer program, or give this one its migration)")
  }
}
