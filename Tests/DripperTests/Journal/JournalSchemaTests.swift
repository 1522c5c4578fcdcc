import Foundation
import Testing

@testable import Dripper

/// A cart as version 1 of a program wrote it: item names only.
private enum CartV1 {
  struct State: Equatable, Sendable, Codable { var items: [String] = [] }
  enum Action: Equatable, Sendable, Codable { case add(String) }

  struct Feature: Dripper {
    typealias State = CartV1.State
    typealias Action = CartV1.Action
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .add(let name): state.items.append(name)
        }
        return .none
      }
    }
  }
}

/// The same cart in version 2: each item has a quantity, and an action says how many.
private enum CartV2 {
  struct Item: Equatable, Sendable, Codable {
    var name: String
    var quantity: Int
  }
  struct State: Equatable, Sendable, Codable { var items: [Item] = [] }
  enum Action: Equatable, Sendable, Codable { case add(String, quantity: Int) }

  struct Feature: Dripper {
    typealias State = CartV2.State
    typealias Action = CartV2.Action
    var body: some DripperOf<Self> {
      Drip { state, action in
        switch action {
        case .add(let name, let quantity): state.items.append(Item(name: name, quantity: quantity))
        }
        return .none
      }
    }
  }

  /// Version 2, reading version 1's JSON.
  static var schema: JournalSchema<State, Action> {
    JournalSchema(version: 2) { text, version in
      #expect(version == 1)
      let old = try JSONDecoder().decode(CartV1.State.self, from: Data(text.utf8))
      return State(items: old.items.map { Item(name: $0, quantity: 1) })
    } migrateAction: { text, version in
      #expect(version == 1)
      switch try JSONDecoder().decode(CartV1.Action.self, from: Data(text.utf8)) {
      case .add(let name): return .add(name, quantity: 1)
      }
    }
  }
}

@Suite struct JournalSchemaTests {
  private func recordUnderVersion1(in scratch: ScratchDirectory) async throws {
    let durable = DurableJournal<CartV1.State, CartV1.Action>(
      directory: scratch.path, snapshotEvery: 2, codec: .json)
    let station = try Station.recovering(from: durable, initialState: CartV1.State()) { CartV1.Feature() }
    for name in ["tea", "milk", "bread"] { await station.pour(.add(name)).finish() }
    try durable.close()
  }

  /// Issue 51: a deploy changes the types. What version 1 recorded (a snapshot of two items and an
  /// entry after it) is migrated once, written again as version 2, and version 2 goes on from it.
  @Test func whatVersion1RecordedIsRecoveredUnderVersion2() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderVersion1(in: scratch)
    #expect(scratch.text("journal").hasPrefix("dripper-journal 1\n3 - {\"add\":{\"_0\":\"bread\"}} "))
    #expect(scratch.text("snapshot").hasPrefix("dripper-snapshot 1 2 "))

    let durable = DurableJournal(
      directory: scratch.path, snapshotEvery: 100, codec: .json, schema: CartV2.schema)
    let station = try Station.recovering(from: durable, initialState: CartV2.State()) { CartV2.Feature() }
    let expected = CartV2.State(items: ["tea", "milk", "bread"].map { CartV2.Item(name: $0, quantity: 1) })
    #expect(await station.state == expected)
    #expect(durable.recovery?.migratedFrom == 1)
    #expect(durable.recovery?.replayed == 1)
    // Written again under version 2: the snapshot holds everything, the journal starts again.
    #expect(scratch.text("snapshot").split(separator: "\n").first?.hasSuffix(" schema 2") == true)
    #expect(scratch.text("journal") == "dripper-journal 1 schema 2\n")
    await station.pour(.add("jam", quantity: 3)).finish()
    try durable.close()
    #expect(try Journal.read(at: scratch.file("journal")).schemaVersion == 2)

    let again = DurableJournal(
      directory: scratch.path, snapshotEvery: 100, codec: .json, schema: CartV2.schema)
    let recovered = try Station.recovering(from: again, initialState: CartV2.State()) { CartV2.Feature() }
    #expect(await recovered.state.items.last == CartV2.Item(name: "jam", quantity: 3))
    #expect(again.recovery?.migratedFrom == nil)
    #expect(again.recovery?.lastSequence == 4)
  }

  /// A rolled-back deploy: the program of version 1 meets files of version 2. Refused, naming both
  /// versions, and nothing on disk changes.
  @Test func filesOfANewerVersionAreRefusedAndLeftAsTheyAre() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderVersion1(in: scratch)
    do {
      let durable = DurableJournal(directory: scratch.path, codec: .json, schema: CartV2.schema)
      let station = try Station.recovering(from: durable, initialState: CartV2.State()) { CartV2.Feature() }
      await station.pour(.add("jam", quantity: 3)).finish()
      try durable.close()
    }
    let (snapshot, journal) = (scratch.contents("snapshot"), scratch.contents("journal"))
    let old = DurableJournal<CartV1.State, CartV1.Action>(directory: scratch.path, codec: .json)
    #expect(
      throws: JournalError(
        "\(scratch.file("snapshot")) was written under schema version 2, newer than this program's 1: it is left as "
          + "it is (run the newer program, or give this one its migration)")
    ) {
      try Station.recovering(from: old, initialState: CartV1.State()) { CartV1.Feature() }
    }
    // The journal alone, a newer one, is refused the same way.
    try FileManager.default.removeItem(atPath: scratch.file("snapshot"))
    #expect(throws: JournalError.self) {
      try Station.recovering(from: old, initialState: CartV1.State()) { CartV1.Feature() }
    }
    #expect(scratch.contents("journal") == journal)
    #expect(snapshot != nil)
  }

  /// A migration that throws is an error for that folder, and nothing on disk changes.
  @Test func aMigrationThatThrowsChangesNothing() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderVersion1(in: scratch)
    let (snapshot, journal) = (scratch.contents("snapshot"), scratch.contents("journal"))
    struct Unknown: Error {}
    let failing = JournalSchema<CartV2.State, CartV2.Action>(
      version: 2, migrateState: CartV2.schema.migrateState, migrateAction: { _, _ in throw Unknown() })
    let durable = DurableJournal(directory: scratch.path, codec: .json, schema: failing)
    #expect(throws: JournalError.self) {
      try Station.recovering(from: durable, initialState: CartV2.State()) { CartV2.Feature() }
    }
    #expect(scratch.contents("snapshot") == snapshot)
    #expect(scratch.contents("journal") == journal)
  }

  /// Version 1 writes what Dripper wrote before schemas, so older readers read it: the journal's
  /// first line is `dripper-journal 1`, the snapshot's has four fields. A later version names
  /// itself, which an older reader refuses as not a journal.
  @Test func version1WritesWhatOlderReadersRead() async throws {
    let scratch = ScratchDirectory()
    try await recordUnderVersion1(in: scratch)
    #expect(scratch.text("journal").split(separator: "\n").first == "dripper-journal 1")
    #expect(scratch.text("snapshot").split(separator: "\n").first?.split(separator: " ").count == 4)
    #expect(JournalLine.schema(ofHeader: Array("dripper-journal 1 schema 7".utf8)[...]) == 7)
    #expect(JournalLine.schema(ofHeader: Array("dripper-journal 1 schema 1".utf8)[...]) == nil)
    #expect(JournalLine.schema(ofHeader: Array("dripper-journal 2".utf8)[...]) == nil)
  }

  /// The JSON codec writes one line, keys sorted, and reads what it wrote.
  @Test func theJSONCodecRoundTrips() throws {
    let codec = JournalCodec<CartV2.State, CartV2.Action>.json
    let action = CartV2.Action.add("oat \"milk\"\nline", quantity: 2)
    #expect(try codec.decodeAction(codec.encodeAction(action)) == action)
    let state = CartV2.State(items: [CartV2.Item(name: "tea", quantity: 1)])
    #expect(try codec.encodeState(state) == #"{"items":[{"name":"tea","quantity":1}]}"#)
    #expect(try codec.decodeState(codec.encodeState(state)) == state)
  }
}
