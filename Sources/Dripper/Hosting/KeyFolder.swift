/// Where a key lives in a host's folder: `keys/AB/CD/NAME`, the two levels from a hash of the
/// key's text, so that a million keys make folders of a few dozen entries each.
///
/// The text is taken in Unicode's composed form (NFC): keys Swift calls equal have one folder. The
/// name is `c` and the text with lowercase ASCII letters, digits and `-` as they are, an uppercase
/// letter as `_` and its lowercase, and every other byte as `%XX`: never empty, never `.` or `..`,
/// never with a `/`, and distinct from any other key's with case ignored. A name longer than 120
/// bytes is `h` and the hash, the text kept in the folder's `key` file to be checked.
///
/// Dripper wrote names otherwise before (`k` and the text as given, uppercase letters kept, `_`
/// as it is): a key whose new folder is missing is looked for under its old name, for the text
/// as asked and its NFC form, and moved to its new folder when found (see ``legacyPaths(of:in:)``).
enum KeyFolder {
  /// The longest name made of the text itself; a longer one is named by the text's hash.
  static let longestName = 120

  /// The key's text as its folder is named: Unicode's composed form (NFC).
  static func canonical(_ text: String) -> String {
    // Most keys are ASCII, which NFC leaves as it is.
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
    return String(decoding: text._nfcCodeUnits, as: UTF8.self)
  }

  /// The folder of the key whose text is `text`, under `root`; and whether its name is a hash,
  /// whose folder keeps the text in a file `key` to be checked.
  static func path(of text: String, in root: String) -> (path: String, hashed: Bool) {
    let text = canonical(text)
    let escaped = name(of: text)
    return place(text, name: escaped, in: root)
  }

  /// `keys/AB/CD/` of the text's hash, and `name`, or the hashed name if `name` is too long.
  private static func place(_ text: String, name: String, in root: String) -> (path: String, hashed: Bool) {
    var hash = FNV1a()
    hash.add(text.utf8)
    let bytes = withUnsafeBytes(of: hash.value.bigEndian) { Array($0) }
    let levels = "\(hexByte(bytes[0]))/\(hexByte(bytes[1]))"
    if name.utf8.count <= longestName {
      return ("\(root)/keys/\(levels)/\(name)", false)
    }
    var digits: [UInt8] = []
    JournalLine.appendHex(hash.value, to: &digits)
    return ("\(root)/keys/\(levels)/h\(String(decoding: digits, as: UTF8.self))", true)
  }

  /// `c` and the text escaped: see ``KeyFolder``.
  static func name(of text: String) -> String {
    var name: [UInt8] = [UInt8(ascii: "c")]
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
        name.append(byte)
      case UInt8(ascii: "A")...UInt8(ascii: "Z"):
        name += [UInt8(ascii: "_"), byte + 32]
      default:
        name.append(UInt8(ascii: "%"))
        name += Array(hexByte(byte).utf8)
      }
      if name.count > longestName { break }
    }
    return String(decoding: name, as: UTF8.self)
  }

  /// Where Dripper kept the key before its names were distinct with case ignored: `k` and the text
  /// as given, every byte but letters, digits, `-` and `_` written `%XX`.
  static func legacyName(of text: String) -> String {
    var name: [UInt8] = [UInt8(ascii: "k")]
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
        name.append(byte)
      default:
        name.append(UInt8(ascii: "%"))
        name += Array(hexByte(byte).utf8)
      }
      if name.count > longestName { break }
    }
    return String(decoding: name, as: UTF8.self)
  }

  /// The folders an earlier Dripper may have kept the key in: under the text as asked for, and
  /// under its NFC form, each named the old way; never the key's new folder itself (a hashed name
  /// did not change).
  static func legacyPaths(of text: String, in root: String) -> [(path: String, hashed: Bool, text: String)] {
    let current = path(of: text, in: root).path
    var paths: [(path: String, hashed: Bool, text: String)] = []
    for spelling in [text, canonical(text)] {
      let (path, hashed) = place(spelling, name: legacyName(of: spelling), in: root)
      if path != current, !paths.contains(where: { $0.path == path }) {
        paths.append((path, hashed, spelling))
      }
    }
    return paths
  }

  private static func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xf)]], as: UTF8.self)
  }

  /// Makes the folders down to `path`, each only if missing, refusing what is not a folder.
  static func make(_ path: String, under root: String) -> JournalError? {
    var current = root
    for component in path.dropFirst(root.count + 1).split(separator: "/") {
      current += "/" + component
      if let failure = AtomicFile.makeDirectory(current) { return JournalError(current, failure) }
    }
    return nil
  }

  /// Claims a folder named by a hash for the key whose text is `text`: the folder keeps the text
  /// in a file `key`, written the first time, and a folder holding another text (two long texts
  /// of one hash) is refused.
  static func claim(_ path: String, for text: String) -> JournalError? {
    let text = canonical(text)
    let file = path + "/key"
    switch AtomicFile.contents(at: file, limit: 1 << 20) {
    case .success(let bytes?):
      guard bytes.elementsEqual(text.utf8) || canonical(String(decoding: bytes, as: UTF8.self)) == text else {
        return JournalError("\(path) holds another key whose text has the same hash: this key is refused")
      }
      return nil
    case .success(nil):
      return AtomicFile.replace(at: file, with: Array(text.utf8)).map { JournalError(file, $0) }
    case .failure(let failure):
      return JournalError(file, failure)
    }
  }
}
