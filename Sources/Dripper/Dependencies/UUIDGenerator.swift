#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Makes Foundation `UUID`s: the ``DependencyValues/uuid`` dependency, as in TCA.
///
/// ```swift
/// @Dependency(\.uuid) var uuid
/// …
/// state.todos.append(Todo(id: uuid(), title: title))
/// ```
///
/// Live, it makes random identifiers; in tests, by default, ``incrementing`` ones, so that a test
/// can predict them: `UUID(0)`, `UUID(1)`, and so on.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UUID

  /// Creates a generator from a closure.
  public init(_ generate: @escaping @Sendable () -> UUID) {
    self.generate = generate
  }

  /// Makes an identifier.
  public func callAsFunction() -> UUID { generate() }

  /// Random version 4 identifiers: `UUID()`.
  public static var random: UUIDGenerator {
    UUIDGenerator { UUID() }
  }

  /// `00000000-0000-0000-0000-000000000000`, then `…-000000000001`, and so on: `UUID(0)`,
  /// `UUID(1)`, … with a fresh counter each time this property is read.
  public static var incrementing: UUIDGenerator {
    let counter = Counter()
    return UUIDGenerator { UUID(counter.next()) }
  }

  /// Always the same identifier.
  public static func constant(_ id: UUID) -> UUIDGenerator {
    UUIDGenerator { id }
  }
}

extension UUID {
  /// The identifier whose last twelve hex digits are `value`, as TCA's tests write them:
  /// `UUID(0)` is `00000000-0000-0000-0000-000000000000`, `UUID(10)` ends in `…00000000000A`.
  ///
  /// ```swift
  /// await station.pour(.addButtonTapped) {
  ///   $0.todos.append(Todo(id: UUID(0)))
  /// }
  /// ```
  ///
  /// - Precondition: `value` is from 0 to 2⁴⁸ − 1.
  public init<Value: BinaryInteger>(_ value: Value) {
    precondition(value >= 0 && value < 1 << 48, "UUID(\(value)): a value from 0 to 2^48 - 1")
    let low = UInt64(value)
    func byte(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: low >> (8 * (5 - index))) }
    self.init(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, byte(0), byte(1), byte(2), byte(3), byte(4), byte(5)))
  }
}

/// A thread-safe counter from zero.
final class Counter: Sendable {
  private let value = Lock<UInt64>(0)

  func next() -> UInt64 {
    value.withLock { value in
      defer { value += 1 }
      return value
    }
  }
}

extension DependencyValues {
  /// Makes identifiers: ``UUIDGenerator/random`` when live, ``UUIDGenerator/incrementing`` in tests.
  public var uuid: UUIDGenerator {
    get { self[UUIDKey.self] }
    set { self[UUIDKey.self] = newValue }
  }
}

private enum UUIDKey: DependencyKey {
  static var liveValue: UUIDGenerator { .random }
  static var testValue: UUIDGenerator { .incrementing }
}
