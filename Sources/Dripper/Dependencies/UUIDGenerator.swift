/// Makes ``UniqueID``s: the ``DependencyValues/uuid`` dependency.
///
/// ```swift
/// @Dependency(\.uuid) var uuid
/// …
/// state.todos.append(Todo(id: uuid(), title: title))
/// ```
///
/// Live, it makes random identifiers; in tests, by default, ``incrementing`` ones, so that a test
/// can predict them.
public struct UUIDGenerator: Sendable {
  private let generate: @Sendable () -> UniqueID

  /// Creates a generator from a closure.
  public init(_ generate: @escaping @Sendable () -> UniqueID) {
    self.generate = generate
  }

  /// Makes an identifier.
  public func callAsFunction() -> UniqueID { generate() }

  /// Random version 4 identifiers from the system's generator.
  public static var random: UUIDGenerator {
    UUIDGenerator {
      var system = SystemRandomNumberGenerator()
      return UniqueID(randomUsing: &system)
    }
  }

  /// `00000000-0000-0000-0000-000000000000`, then `…-000000000001`, and so on: a fresh counter each
  /// time this property is read.
  public static var incrementing: UUIDGenerator {
    let counter = Counter()
    return UUIDGenerator { UniqueID(high: 0, low: counter.next()) }
  }

  /// Always the same identifier.
  public static func constant(_ id: UniqueID) -> UUIDGenerator {
    UUIDGenerator { id }
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
