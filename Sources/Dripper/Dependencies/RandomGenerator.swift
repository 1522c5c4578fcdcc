import Synchronization

/// A source of random numbers that tests can seed: the ``DependencyValues/random`` dependency.
///
/// ```swift
/// @Dependency(\.random) var random
/// …
/// let roll = random.int(in: 1...6)
/// let delay = random.double(in: 0..<1)
/// ```
///
/// Live, it draws from the system's generator; in tests, by default, from ``seeded(_:)`` with seed
/// 0, so that a test sees the same numbers on every run. It conforms to `RandomNumberGenerator`:
/// copy it into a `var` to pass it to the standard library (`array.shuffled(using: &generator)`).
public struct RandomGenerator: RandomNumberGenerator, Sendable {
  private let source: Source

  private final class Source: Sendable {
    let isSeeded: Bool
    let state: Lock<UInt64>

    init(seed: UInt64?) {
      isSeeded = seed != nil
      state = Lock(seed ?? 0)
    }

    func next() -> UInt64 {
      guard isSeeded else {
        var system = SystemRandomNumberGenerator()
        return system.next()
      }
      // SplitMix64: small, fast, and good enough for simulations and tests.
      return state.withLock { state in
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
      }
    }
  }

  private init(seed: UInt64?) { source = Source(seed: seed) }

  /// Numbers from the system's generator.
  public static var system: RandomGenerator { RandomGenerator(seed: nil) }

  /// A repeatable sequence of numbers determined by `seed`; each call starts a new sequence.
  public static func seeded(_ seed: UInt64) -> RandomGenerator { RandomGenerator(seed: seed) }

  /// The next 64 random bits. Copies of the generator share its sequence.
  public mutating func next() -> UInt64 { source.next() }

  /// A random integer in `range`.
  public func int(in range: ClosedRange<Int>) -> Int {
    var copy = self
    return Int.random(in: range, using: &copy)
  }

  /// A random integer in `range`, which must not be empty.
  public func int(in range: Range<Int>) -> Int {
    var copy = self
    return Int.random(in: range, using: &copy)
  }

  /// A random floating-point number in `range`, which must not be empty.
  public func double(in range: Range<Double>) -> Double {
    var copy = self
    return Double.random(in: range, using: &copy)
  }

  /// `true` with probability `probability`.
  public func bool(probability: Double = 0.5) -> Bool {
    double(in: 0..<1) < probability
  }
}

extension DependencyValues {
  /// Random numbers: ``RandomGenerator/system`` when live, ``RandomGenerator/seeded(_:)`` with
  /// seed 0 in tests.
  public var random: RandomGenerator {
    get { self[RandomKey.self] }
    set { self[RandomKey.self] = newValue }
  }
}

private enum RandomKey: DependencyKey {
  static var liveValue: RandomGenerator { .system }
  static var testValue: RandomGenerator { .seeded(0) }
}
