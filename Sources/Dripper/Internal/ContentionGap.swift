/// 128 bytes that nothing reads: two cache lines, the unit x86 prefetches in. A stored property of
/// this type keeps the fields declared before it and those after it from sharing a line, so that
/// one thread writing on one side does not slow down another reading the other side.
///
/// Not copyable, so that a borrow of it is its place in the object: `LayoutTests` reads where
/// each gap sits and checks that it separates what it should, since Swift does not promise the
/// order of stored properties.
@usableFromInline
struct ContentionGap: ~Copyable, Sendable {
  @usableFromInline let bytes:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

  @inlinable
  init() {}
}
