extension DurableJournal {
  /// The recording a recovered Station runs: each entry, and a snapshot every `snapshotEvery`.
  ///
  /// Inlinable, so that the recording around the feature is specialized where the Station is made.
  @inlinable
  func recording<D: Dripper<State, Action>>(_ dripper: D, to journal: Journal) -> some Dripper<State, Action>
  {
    _RecordingModifier(
      base: dripper, journal: journal, stateHash: stateHash, encode: codec.encodeAction,
      recorded: { [self] sequence, state in recorded(sequence, state, in: journal) })
  }

  /// Told of each entry recorded: every `snapshotEvery`, a snapshot of the state it left, written
  /// once the entries before it are synced. Returns what the Station is to be told.
  @usableFromInline
  func recorded(_ sequence: UInt64, _ state: State, in journal: Journal) -> [Diagnostic] {
    guard sequence % snapshotEvery == 0, let file = journal.file else { return [] }
    file.snapshot { self.snapshot(of: state, at: sequence) }
    // Written by now if each action is synced; else the next append reports a refusal.
    return file.takeNotes().map { Diagnostic(.other, $0) }
  }

  /// Writes a snapshot of `state`, the state after entry `sequence`, unless recovery could not
  /// read it back: larger than it reads, or a text the codec does not decode.
  func snapshot(of state: State, at sequence: UInt64) -> SnapshotOutcome {
    let path = snapshotPath
    switch encodedSnapshot(of: state, at: sequence) {
    case .success(let bytes):
      if let error = AtomicFile.replace(at: path, with: bytes).map({ JournalError(path, $0) }) {
        return .failed(error)
      }
      return .written
    case .failure(let refusal):
      return refusal.outcome
    }
  }

  /// A snapshot's bytes, as a file or a ``KeyStore`` keeps them, or why none is written: the
  /// state does not encode (a failure), or recovery could not read it back (a refusal).
  func encodedSnapshot(of state: State, at sequence: UInt64) -> Result<[UInt8], SnapshotRefusal> {
    let path = snapshotPath
    let text: String
    do {
      text = try codec.encodeState(state)
    } catch {
      return .failure(
        SnapshotRefusal(
          outcome: .failed(JournalError("\(path): the state could not be encoded for a snapshot: \(error)"))))
    }
    let refused = "\(path): the snapshot of entry \(sequence) was not written"
    let bytes = Self.snapshotBytes(text, sequence: sequence, schema: schema.version)
    guard bytes.count <= limits.snapshot else {
      return .failure(
        SnapshotRefusal(
          outcome: .refused(
            "\(refused): it would be \(bytes.count) bytes, more than the \(JournalLimits.describe(limits.snapshot)) "
              + "recovery reads; the journal keeps every entry since the last snapshot")))
    }
    do {
      _ = try codec.decodeState(text)
    } catch {
      return .failure(
        SnapshotRefusal(
          outcome: .refused(
            "\(refused): its text does not decode (\(error)); the journal keeps every entry since the last snapshot"
          )))
    }
    return .success(bytes)
  }

  /// Writes a snapshot of `state`, the state after every entry recorded, once they are synced, and
  /// closes the journal: a key of a ``StationHost`` passivated, whose recovery then reads the
  /// snapshot alone. The error of the last write, if any.
  func snapshotAndClose(_ state: State) -> JournalError? {
    guard let file = opened.withLock({ $0.journal })?.file else { return nil }
    let sequence = file.lastSequence
    if sequence > 0 { file.snapshot { self.snapshot(of: state, at: sequence) } }
    let error = file.shutDown(waiting: true)
    return error ?? file.takeNotes().first.map(JournalError.init)
  }

  /// The first line of a snapshot file; the sequence number and the checksum of the text follow,
  /// then `schema N` for a schema version after 1.
  static var snapshotHeader: String { "dripper-snapshot 1" }

  func readSnapshot() throws(JournalError) -> (sequence: UInt64, text: String, schema: Int)? {
    switch AtomicFile.contents(at: snapshotPath, limit: limits.snapshot) {
    case .success(nil): return nil
    case .success(let bytes?): return try Self.parseSnapshot(bytes, named: snapshotPath)
    case .failure(let failure): throw JournalError(snapshotPath, failure)
    }
  }

  /// A snapshot's sequence number, text and schema version, from its bytes; `name` says where
  /// they were read in the error.
  static func parseSnapshot(_ bytes: [UInt8], named name: String) throws(JournalError) -> (
    sequence: UInt64, text: String, schema: Int
  ) {
    let corrupt = JournalError("\(name) is not a Dripper snapshot, or is corrupt")
    guard let newline = bytes.firstIndex(of: JournalLine.newline) else { throw corrupt }
    let fields = bytes[..<newline].split(separator: JournalLine.space)
    guard fields.count == 4 || fields.count == 6,
      String(decoding: fields[0] + [JournalLine.space] + fields[1], as: UTF8.self)
        == Self.snapshotHeader,
      let sequence = JournalLine.decimal(fields[2]), let checksum = JournalLine.hex(fields[3])
    else { throw corrupt }
    var schema = 1
    if fields.count == 6 {
      guard fields[4].elementsEqual("schema".utf8), let version = JournalLine.decimal(fields[5]),
        version >= 2,
        version <= UInt64(Int32.max)
      else { throw corrupt }
      schema = Int(version)
    }
    let text = bytes[(newline + 1)...]
    var actual = FNV1a()
    actual.add(text)
    guard actual.value == checksum, let string = String(validating: text, as: UTF8.self) else {
      throw corrupt
    }
    return (sequence, string, schema)
  }

  static func writeSnapshot(_ text: String, sequence: UInt64, schema: Int = 1, to path: String)
    -> JournalError?
  {
    AtomicFile.replace(at: path, with: snapshotBytes(text, sequence: sequence, schema: schema)).map {
      JournalError(path, $0)
    }
  }

  /// A snapshot file's bytes: its header line, with the sequence number, the text's checksum and,
  /// after version 1, the schema version; then the text.
  static func snapshotBytes(_ text: String, sequence: UInt64, schema: Int = 1) -> [UInt8] {
    var bytes = Array((snapshotHeader + " ").utf8)
    JournalLine.appendDecimal(sequence, to: &bytes)
    bytes.append(JournalLine.space)
    var checksum = FNV1a()
    checksum.add(text.utf8)
    JournalLine.appendHex(checksum.value, to: &bytes)
    if schema > 1 { bytes += Array(" schema \(schema)".utf8) }
    bytes.append(JournalLine.newline)
    bytes += text.utf8
    return bytes
  }
}
