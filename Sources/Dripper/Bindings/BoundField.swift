/// A stored field of a binding action's root, found by its byte offset: what lets a
/// ``BindingAction`` with a small plain value (a number, a flag, an enum without payloads) or a
/// string set its field without holding an object.
///
/// A binding action poured from one thread and reduced on another would otherwise carry an object
/// (the key path, or a box for it) whose reference count both threads touch: each pour moved that
/// count's cache line between cores, and a binding pour cost about twice a plain one
/// (`swift run -c release dripper-bench --filter composition`). A stored property with no
/// observers has a fixed offset in its root (`MemoryLayout.offset(of:)`); a value of a
/// `BitwiseCopyable` type of up to eight bytes travels as its bytes, a string as itself. The key
/// path, wanted only to print, compare or inspect the action, is kept once per field in a
/// process-wide table and found by `number`.
@usableFromInline
struct BoundField: Sendable {
  /// The field's byte offset in the root.
  @usableFromInline let offset: Int32
  /// The field's place in ``BoundFieldTable``.
  @usableFromInline let number: UInt16
  /// The size of the field's value, 1 to 8 bytes.
  @usableFromInline let size: UInt16

  /// The field `keyPath` names, or `nil` if it is not a stored property with an offset (a
  /// computed property, one with observers, a subscript, a class's property), its values are
  /// empty or larger than eight bytes, or the table is full.
  @usableFromInline
  init?<Root, Value: Equatable & Sendable & BitwiseCopyable>(
    _ keyPath: any WritableKeyPath<Root, Value> & Sendable
  ) {
    guard (1...8).contains(MemoryLayout<Value>.size),
      let place = boundFields.file(keyPath, bytes: { .init(Value.self) })
    else {
      return nil
    }
    self.init(place, size: MemoryLayout<Value>.size)
  }

  /// The text field `keyPath` names, or `nil` if it is not a stored property with an offset
  /// or the table is full.
  @usableFromInline
  init?<Root>(_ keyPath: any WritableKeyPath<Root, String> & Sendable) {
    guard let place = boundFields.file(keyPath, bytes: { nil }) else { return nil }
    self.init(place, size: MemoryLayout<String>.size)
  }

  private init(_ place: BoundFieldTable.Place, size: Int) {
    offset = place.offset
    number = place.number
    self.size = UInt16(size)
  }

  /// `value`'s bytes, as a field of this kind holds them.
  @inlinable
  static func bits<Value: BitwiseCopyable>(of value: Value) -> UInt64 {
    var bits: UInt64 = 0
    withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
    return bits
  }

  /// Writes the value whose bytes are `bits` into the field of `root`.
  @inlinable
  func write<Root>(_ bits: UInt64, into root: inout Root) {
    // The field holds a value of a `BitwiseCopyable` type, which may be written as bytes; the
    // slices are bounds-checked.
    withUnsafeBytes(of: bits) { source in
      withUnsafeMutableBytes(of: &root) { target in
        let start = Int(offset)
        UnsafeMutableRawBufferPointer(rebasing: target[start..<start + Int(size)])
          .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<Int(size)]))
      }
    }
  }

  /// Writes `text` into the text field of `root`.
  @inlinable
  func write<Root>(_ text: String, into root: inout Root) {
    // The field is a stored `String` property at this offset; the slice is bounds-checked.
    withUnsafeMutableBytes(of: &root) { target in
      let start = Int(offset)
      UnsafeMutableRawBufferPointer(rebasing: target[start..<start + Int(size)]).baseAddress
        .unsafelyUnwrapped.assumingMemoryBound(to: String.self).pointee = text
    }
  }
}

/// The key paths of the stored fields binding actions have set, each filed once with its offset
/// and with what reads and compares its values' bytes.
///
/// It grows by one entry per distinct stored field ever bound, a number fixed by the program's
/// types: key paths with subscripts or through computed properties are not stored fields and are
/// never filed.
final class BoundFieldTable: Sendable {
  /// Where a filed field is.
  struct Place: Sendable {
    let offset: Int32
    let number: UInt16
  }

  /// How to read and compare the values of a field that travel as their bytes.
  struct Bytes: Sendable {
    let value: @Sendable (UInt64) -> any Sendable
    let equal: @Sendable (UInt64, UInt64) -> Bool

    init<Value: Equatable & Sendable & BitwiseCopyable>(_: Value.Type) {
      value = { bits in withUnsafeBytes(of: bits) { $0.load(as: Value.self) } }
      equal = { one, other in
        withUnsafeBytes(of: one) { $0.load(as: Value.self) }
          == withUnsafeBytes(of: other) { $0.load(as: Value.self) }
      }
    }
  }

  /// What the table knows of a field.
  private struct Entry: Sendable {
    let keyPath: any Sendable
    /// For a field whose values travel as bytes.
    let bytes: Bytes?
  }

  private struct Files {
    var entries: [Entry] = []
    /// The filed key path objects, by identity: a key path literal is one object each time it
    /// is evaluated, so this finds most fields without hashing their key path.
    var byObject: [ObjectIdentifier: Place] = [:]
    /// By value, for a key path made again (appended, or in a generic context).
    var byKeyPath: [AnyKeyPath: Place] = [:]

    func place(of keyPath: AnyKeyPath) -> Place? {
      byObject[ObjectIdentifier(keyPath)] ?? byKeyPath[keyPath]
    }
  }

  private let files = Lock(Files())

  init() {}

  /// Where `keyPath` is, filing it with `bytes()` if it is new, or `nil` if it is not a stored
  /// field or the table is full.
  func file<Root, Value>(
    _ keyPath: any WritableKeyPath<Root, Value> & Sendable, bytes: () -> Bytes?
  ) -> Place? {
    let object = ObjectIdentifier(keyPath)
    if let place = files.withLock({ $0.byObject[object] }) { return place }
    guard let offset = MemoryLayout<Root>.offset(of: keyPath).flatMap(Int32.init(exactly:)) else {
      return nil
    }
    let bytes = bytes()
    return files.withLock { files in
      if let place = files.byKeyPath[keyPath] { return place }
      guard let number = UInt16(exactly: files.entries.count) else { return nil }
      let place = Place(offset: offset, number: number)
      files.entries.append(Entry(keyPath: keyPath, bytes: bytes))
      // The entry keeps the object alive, so its identity names it alone.
      files.byObject[object] = place
      files.byKeyPath[keyPath] = place
      return place
    }
  }

  /// The number `keyPath` was filed under, or `nil` if it was not.
  func number<Root>(of keyPath: any PartialKeyPath<Root> & Sendable) -> UInt16? {
    files.withLock { $0.place(of: keyPath)?.number }
  }

  /// The key path filed as `number`.
  func keyPath(_ number: UInt16) -> any Sendable { entry(number).keyPath }

  /// The value whose bytes are `bits` in the field filed as `number`.
  func value(_ number: UInt16, _ bits: UInt64) -> any Sendable {
    // A field is filed by the first action to bind it, with its bytes if it has them; every
    // action with its bits is of that kind.
    entry(number).bytes!.value(bits)
  }

  /// Whether `one` and `other` are equal values of the field filed as `number`.
  func equal(_ number: UInt16, _ one: UInt64, _ other: UInt64) -> Bool {
    entry(number).bytes!.equal(one, other)
  }

  private func entry(_ number: UInt16) -> Entry {
    files.withLock { files -> Entry in files.entries[Int(number)] }
  }
}

/// The process's bound fields.
let boundFields = BoundFieldTable()
