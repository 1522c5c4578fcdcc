#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The file a ``FolderKeyStore`` keeps a key in, `log`: a header line, then records appended one
/// a claim or a write, each whole or cut off.
///
/// The header is `dripper key log 1` and a newline; a log of a later version is refused, one line,
/// and left as it is. A record is its kind (a byte), the length of its payload (4 bytes), a
/// checksum of the three (FNV-1a, 8 bytes; numbers little-endian) and the payload:
/// - a claim (1): the epoch, and the owner's name;
/// - a write (2): the epoch; the entries, each its sequence, schema version and bytes; the
///   snapshot, if any, its sequence and bytes; the reminder, if any, as the bits of its seconds
///   since 1970.
///
/// A write is one record, appended in one system call and synced before it is acknowledged: a
/// crash leaves it whole or cut off, and a record cut off at the end of the file (too short, or
/// failing its checksum with nothing after it) was never acknowledged, and is cut away by the next
/// append. A record failing its checksum with records after it is damage, and the key is refused.
/// A write with a snapshot starts the log again: a claim, and one write holding the snapshot, the
/// entries after it and the reminder, renamed over the old log.
///
/// A log's first record, made with the file, is a claim whose owner is `#` and a random number:
/// no two logs begin alike, so a store that knows a log's first record and length knows what it
/// says without reading it again (another process's append makes it longer, its rewrite begins
/// otherwise).
enum FolderKeyLog {
  /// The version this Dripper writes and reads.
  static let version = 1
  static let header = Array("dripper key log \(version)\n".utf8)
  private static let headerPrefix = Array("dripper key log ".utf8)
  private static let recordHeader = 13

  /// What a key's log says.
  struct Contents {
    /// The last epoch claimed or written; 0 for a log with no record.
    var epoch: UInt64 = 0
    var snapshot: StoredSnapshot?
    /// The entries after the snapshot, in order.
    var entries: [StoredEntry] = []
    var reminder: Date?
    /// Whether the log holds a write: whether the key exists.
    var written = false
    /// The key's last entry, or its snapshot's.
    var last: UInt64 = 0
    /// The bytes of the header and the whole records: where the next record goes. 0 for a log
    /// whose header was cut off as the file was made.
    var length = 0
    /// The header and the first record: a record of the log's own, which a log written again
    /// does not share (see ``FolderKeyStore``'s summaries).
    var first: [UInt8] = []
    /// Whether `entries` and `snapshot` were read, or only what a write checks.
    var isWhole = true

    /// The key as a store returns it.
    var stored: StoredKey {
      StoredKey(epoch: epoch, snapshot: snapshot, entries: entries, reminder: reminder)
    }
  }

  private enum Kind: UInt8 {
    case claim = 1
    case write = 2
  }

  // MARK: - Writing

  /// The first record of a log made or written again: a claim at `epoch` whose owner is `#` and
  /// 16 random hexadecimal digits, so that no two logs begin alike.
  static func firstRecord(epoch: UInt64) -> [UInt8] {
    var digits: [UInt8] = []
    JournalLine.appendHex(UInt64.random(in: .min ... .max), to: &digits)
    return claimRecord(epoch: epoch, owner: "#" + String(decoding: digits, as: UTF8.self))
  }

  static func claimRecord(epoch: UInt64, owner: String) -> [UInt8] {
    var payload: [UInt8] = []
    append(epoch, to: &payload)
    payload += owner.utf8
    return record(.claim, payload)
  }

  static func writeRecord(_ write: KeyWrite) -> [UInt8] {
    var payload: [UInt8] = []
    append(write.epoch, to: &payload)
    append(UInt32(write.entries.count), to: &payload)
    for entry in write.entries {
      append(entry.sequence, to: &payload)
      append(UInt64(bitPattern: Int64(entry.schema)), to: &payload)
      append(UInt32(entry.bytes.count), to: &payload)
      payload += entry.bytes
    }
    payload.append((write.snapshot == nil ? 0 : 1) | (write.reminder == nil ? 0 : 2))
    if let snapshot = write.snapshot {
      append(snapshot.sequence, to: &payload)
      append(UInt32(snapshot.bytes.count), to: &payload)
      payload += snapshot.bytes
    }
    if let reminder = write.reminder {
      append(reminder.timeIntervalSince1970.bitPattern, to: &payload)
    }
    return record(.write, payload)
  }

  /// The largest payload a record holds: a write larger than this is refused.
  static let largestPayload = Int(UInt32.max)

  private static func record(_ kind: Kind, _ payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [kind.rawValue]
    append(UInt32(truncatingIfNeeded: payload.count), to: &bytes)
    var checksum = FNV1a()
    checksum.add(bytes)
    checksum.add(payload)
    append(checksum.value, to: &bytes)
    return bytes + payload
  }

  private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
  }

  // MARK: - Reading

  /// What `bytes`, a key's log, says; a one-line error for a log this Dripper cannot read.
  static func read(_ bytes: [UInt8]) -> Result<Contents, JournalError> {
    var contents = Contents()
    guard bytes.starts(with: header) else {
      // Cut off as the file was made: nothing was written.
      if header.starts(with: bytes) { return .success(contents) }
      guard bytes.starts(with: headerPrefix), let newline = bytes.firstIndex(of: 0x0A) else {
        return .failure(JournalError("it is not a Dripper key log"))
      }
      let version = String(decoding: bytes[headerPrefix.count..<newline], as: UTF8.self)
      return .failure(
        JournalError(
          "it is a key log of version \(version), which this Dripper (version \(Self.version)) cannot read"))
    }
    var offset = header.count
    while offset < bytes.count {
      guard bytes.count - offset >= recordHeader else { break }
      var reader = Reader(bytes: bytes[offset...])
      let kind = reader.byte()!
      let length = Int(reader.integer(UInt32.self)!)
      let checksum = reader.integer(UInt64.self)!
      let end = offset + recordHeader + length
      guard end <= bytes.count else { break }
      var computed = FNV1a()
      computed.add(bytes[offset..<offset + 5])
      computed.add(bytes[offset + recordHeader..<end])
      guard computed.value == checksum else {
        if end == bytes.count { break }
        return .failure(JournalError("the record at byte \(offset) fails its checksum: the file is damaged"))
      }
      reader = Reader(bytes: bytes[(offset + recordHeader)..<end])
      guard apply(kind, &reader, to: &contents), reader.isAtEnd || kind == Kind.claim.rawValue else {
        return .failure(
          JournalError("the record at byte \(offset) is not one this Dripper reads (kind \(kind))"))
      }
      if contents.first.isEmpty { contents.first = Array(bytes[..<end]) }
      offset = end
    }
    contents.length = offset
    return .success(contents)
  }

  /// Applies one record; false if it cannot be read.
  private static func apply(_ kind: UInt8, _ reader: inout Reader, to contents: inout Contents) -> Bool {
    guard let kind = Kind(rawValue: kind), let epoch = reader.integer(UInt64.self) else { return false }
    contents.epoch = max(contents.epoch, epoch)
    guard kind == .write else { return true }
    guard let count = reader.integer(UInt32.self) else { return false }
    for _ in 0..<count {
      guard let sequence = reader.integer(UInt64.self), let schema = reader.integer(UInt64.self),
        let bytes = reader.bytes(Int(reader.integer(UInt32.self) ?? UInt32.max))
      else { return false }
      contents.entries.append(
        StoredEntry(sequence: sequence, schema: Int(Int64(bitPattern: schema)), bytes: bytes))
      contents.last = max(contents.last, sequence)
    }
    guard let flags = reader.byte() else { return false }
    if flags & 1 != 0 {
      guard let sequence = reader.integer(UInt64.self),
        let bytes = reader.bytes(Int(reader.integer(UInt32.self) ?? UInt32.max))
      else { return false }
      contents.snapshot = StoredSnapshot(sequence: sequence, bytes: bytes)
      contents.last = max(contents.last, sequence)
      contents.entries.removeAll { $0.sequence <= sequence }
    }
    if flags & 2 != 0 {
      guard let bits = reader.integer(UInt64.self) else { return false }
      contents.reminder = Date(timeIntervalSince1970: Double(bitPattern: bits))
    } else {
      contents.reminder = nil
    }
    contents.written = true
    return true
  }

  private struct Reader {
    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func byte() -> UInt8? { bytes.popFirst() }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
      let size = MemoryLayout<T>.size
      guard bytes.count >= size else { return nil }
      var value = T.zero
      for (shift, byte) in bytes.prefix(size).enumerated() { value |= T(byte) << (shift * 8) }
      bytes = bytes.dropFirst(size)
      return value
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
      guard count <= bytes.count else { return nil }
      defer { bytes = bytes.dropFirst(count) }
      return Array(bytes.prefix(count))
    }
  }
}
