/// 128 bytes that nothing reads: two cache lines, the unit x86 prefetches in. A stored property of
/// this type keeps the fields declared before it and those after it from sharing a line, so that
/// one thread writing on one side does not slow down another reading the other side.
@usableFromInline
struct ContentionGap: Sendable {
  @usableFromInline let bytes:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

  @inlinable
  init() {}
}
