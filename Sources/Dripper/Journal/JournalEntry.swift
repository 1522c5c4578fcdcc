/// One action a recording Station reduced: its place in the journal, the action as the recording's
/// encoder wrote it, and a hash of the state it left, when the recording hashes states.
///
/// ```swift
/// for entry in journal.entries {
///   print(entry.sequence, entry.action)   // 1 increase, 2 set 42, …
/// }
/// ```
public struct JournalEntry: Sendable, Equatable, CustomStringConvertible {
  /// The entry's number: 1 for the first action a journal ever recorded, one more for each after
  /// it, across restarts and snapshots.
  public let sequence: UInt64
  /// The action, encoded by the recording's `encode`.
  public let action: String
  /// The ``StateHash`` of the state the action left, or `nil` when the recording does not hash.
  public let stateHash: UInt64?

  /// An entry.
  public init(sequence: UInt64, action: String, stateHash: UInt64?) {
    self.sequence = sequence
    self.action = action
    self.stateHash = stateHash
  }

  /// The entry as one line of a journal file, without its newline.
  public var description: String { String(decoding: JournalLine.encode(self), as: UTF8.self) }
}

/// The text of a journal file: a header line, then one line per entry.
///
/// ```
/// dripper-journal 1
/// 1 9f2c4e01a3b5d7e8 increase 5d41402abc4b2a76
/// 2 - set 42 0cc175b9c0f1b6a8
/// ```
///
/// An entry's line is its sequence number, the state's hash in hexadecimal (`-` for none), the
/// action, with `\`, newlines and carriage returns escaped (`\\`, `\n`, `\r`) so that every entry
/// is one line whatever its action holds, and a checksum of what comes before it on the line
/// (see ``checksum(_:)``). The checksum tells a whole line from a torn one: a line a crash cut short, or
/// the garbage a crash may leave in a file's last block.
enum JournalLine {
  /// The first line of every journal file whose entries are of schema version 1 (every journal
  /// but a ``DurableJournal``'s with a ``JournalSchema`` of a later version).
  static let header: [UInt8] = Array("dripper-journal 1\n".utf8)

  /// The first line of a journal whose entries are of schema version `schema`: the plain header
  /// for version 1, which every version of Dripper reads; `dripper-journal 1 schema N` after it,
  /// which a Dripper older than schemas refuses as not a journal (changing nothing).
  static func header(schema: Int) -> [UInt8] {
    schema <= 1 ? header : Array("dripper-journal 1 schema \(schema)\n".utf8)
  }

  /// The schema version a journal's first line (without its newline) names; `nil` if it is not a
  /// journal's first line.
  static func schema(ofHeader line: ArraySlice<UInt8>) -> Int? {
    if line.elementsEqual(header.dropLast()) { return 1 }
    let prefix = Array("dripper-journal 1 schema ".utf8)
    guard line.starts(with: prefix), let version = decimal(line.dropFirst(prefix.count)), version >= 2,
      version <= UInt64(Int32.max)
    else { return nil }
    return Int(version)
  }

  /// The most a line's fields other than the action take: a sequence number of 20 digits, a
  /// hash, a checksum and three spaces.
  static let overhead = 55

  /// The length of `action` escaped, as an entry's line holds it.
  static func escapedLength(of action: String) -> Int {
    var length = 0
    for byte in action.utf8 {
      length += byte == backslash || byte == newline || byte == carriageReturn ? 2 : 1
    }
    return length
  }

  /// `entry` as a line, without its newline.
  static func encode(_ entry: JournalEntry) -> [UInt8] {
    var line: [UInt8] = []
    line.reserveCapacity(entry.action.utf8.count + 44)
    append(entry, to: &line)
    line.removeLast()
    return line
  }

  /// Appends `entry`'s line, with its newline, to `bytes`.
  static func append(_ entry: JournalEntry, to bytes: inout [UInt8]) {
    append(sequence: entry.sequence, action: entry.action, stateHash: entry.stateHash, to: &bytes)
  }

  /// Appends an entry's line, with its newline, to `bytes`: what a file journal does for each
  /// action. The line is built in a buffer on the stack and appended in one copy, so nothing
  /// allocates but the growth of `bytes`.
  static func append(sequence: UInt64, action: String, stateHash: UInt64?, to bytes: inout [UInt8]) {
    var action = action
    action.withUTF8 { text in
      var escapes = 0
      for byte in text where byte == backslash || byte == newline || byte == carriageReturn {
        escapes += 1
      }
      // Sequence (at most 20 digits), hash, action, checksum, three spaces and a newline.
      let capacity = 20 + 16 + text.count + escapes + 16 + 4
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { line in
        var end = write(decimal: sequence, into: line, at: 0)
        line[end] = space
        if let stateHash {
          end = write(hex: stateHash, into: line, at: end + 1)
        } else {
          line[end + 1] = dash
          end += 2
        }
        line[end] = space
        end += 1
        if escapes == 0 {
          _ = UnsafeMutableBufferPointer(rebasing: line[end..<(end + text.count)]).initialize(
            fromContentsOf: text)
          end += text.count
        } else {
          for byte in text {
            switch byte {
            case backslash, newline, carriageReturn:
              line[end] = backslash
              line[end + 1] =
                byte == newline ? UInt8(ascii: "n") : byte == carriageReturn ? UInt8(ascii: "r") : backslash
              end += 2
            default:
              line[end] = byte
              end += 1
            }
          }
        }
        let checksum = Self.checksum(UnsafeBufferPointer(rebasing: line[..<end]))
        line[end] = space
        end = write(hex: checksum, into: line, at: end + 1)
        line[end] = newline
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: line[...end]))
      }
    }
  }

  /// The checksum that ends a line, of the bytes before it: a 64-bit hash taken eight bytes at a
  /// time (a multiply and a rotation each), then mixed as MurmurHash3's finalizer does. A torn
  /// line or a stray byte changes it but for a chance in 2⁶⁴, and a short line costs a few
  /// nanoseconds (a byte at a time, as FNV-1a goes, costs several times that).
  static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
    let raw = UnsafeRawBufferPointer(bytes)
    var offset = 0
    while offset + 8 <= raw.count {
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      hash = mix(hash, word)
      offset += 8
    }
    if offset < raw.count {
      var word: UInt64 = 0
      for (shift, byte) in raw[offset...].enumerated() { word |= UInt64(byte) << UInt64(shift * 8) }
      hash = mix(hash, word)
    }
    hash ^= hash >> 33
    hash &*= 0xff51_afd7_ed55_8ccd
    hash ^= hash >> 33
    hash &*= 0xc4ce_b9fe_1a85_ec53
    hash ^= hash >> 33
    return hash
  }

  private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
    let product = (hash ^ word) &* 0x9e37_79b9_7f4a_7c15
    return product << 31 | product >> 33
  }

  /// Writes `value`'s decimal digits at `start`; returns the index after them.
  private static func write(
    decimal value: UInt64, into line: UnsafeMutableBufferPointer<UInt8>, at start: Int
  ) -> Int {
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    var remaining = value
    var index = start + digits - 1
    repeat {
      line[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
      remaining /= 10
      index -= 1
    } while remaining > 0
    return start + digits
  }

  /// Writes `value` as 16 lowercase hexadecimal digits at `start`; returns the index after them.
  private static func write(hex value: UInt64, into line: UnsafeMutableBufferPointer<UInt8>, at start: Int)
    -> Int
  {
    let base = UnsafeMutableRawPointer(line.baseAddress! + start)
    base.storeBytes(of: hexDigits(UInt32(truncatingIfNeeded: value >> 32)).littleEndian, as: UInt64.self)
    base.storeBytes(
      of: hexDigits(UInt32(truncatingIfNeeded: value)).littleEndian, toByteOffset: 8, as: UInt64.self)
    return start + 16
  }

  /// `value`'s eight hexadecimal digits as ASCII, the first in the lowest byte: each nibble
  /// spread into a byte of its own, then `0`…`9` or `a`…`f` added to all eight at once.
  private static func hexDigits(_ value: UInt32) -> UInt64 {
    var nibbles = UInt64(value)
    nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
    nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
    nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
    // A byte at 10 or more gets 0x27 more, from `9` + 1 to `a`.
    let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
    let digits = nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    // The first digit is in the highest byte: swapped, it is the lowest.
    return digits.byteSwapped
  }

  /// Why a line is not an entry: what it is, for the error that names it.
  enum Damage: Error, Equatable {
    case malformed
    case checksum
  }

  /// The entry on `line` (without its newline).
  static func decode(_ line: ArraySlice<UInt8>) -> Result<JournalEntry, Damage> {
    guard let last = line.lastIndex(of: space), let checksum = hex(line[(last + 1)...]) else {
      return .failure(.malformed)
    }
    let checked = line[..<last]
    guard checked.withUnsafeBufferPointer(Self.checksum) == checksum else { return .failure(.checksum) }
    let fields = checked.split(separator: space, maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count == 3, let sequence = decimal(fields[0]), sequence > 0 else {
      return .failure(.malformed)
    }
    let stateHash: UInt64?
    if fields[1].elementsEqual([dash]) {
      stateHash = nil
    } else if let hash = hex(fields[1]) {
      stateHash = hash
    } else {
      return .failure(.malformed)
    }
    guard let action = unescape(fields[2]) else { return .failure(.malformed) }
    return .success(JournalEntry(sequence: sequence, action: action, stateHash: stateHash))
  }
}

/// The 64-bit FNV-1a hash: a checksum of a journal's lines, and the hash ``StateHash/dump`` takes
/// of a state's text. Not a cryptographic hash: it tells torn lines and changed states apart, and
/// is the same in every process and on every platform, which `Hasher` is not.
struct FNV1a {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func add(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      value ^= UInt64(byte)
      value &*= 0x0000_0100_0000_01b3
    }
  }
}
