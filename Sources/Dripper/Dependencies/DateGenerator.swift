#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Tells the time: the ``DependencyValues/date`` dependency.
///
/// ```swift
/// @Dependency(\.date) var date
/// …
/// state.lastSaved = date.now
/// ```
public struct DateGenerator: Sendable {
  private let generate: @Sendable () -> Timestamp

  /// Creates a generator from a closure.
  public init(_ generate: @escaping @Sendable () -> Timestamp) {
    self.generate = generate
  }

  /// The current time.
  public var now: Timestamp { generate() }

  /// The current time.
  public func callAsFunction() -> Timestamp { generate() }

  /// The system's calendar time.
  public static var system: DateGenerator {
    DateGenerator {
      var spec = timespec()
      clock_gettime(CLOCK_REALTIME, &spec)
      return Timestamp(sinceEpoch: .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec))
    }
  }

  /// Always the same time.
  public static func constant(_ timestamp: Timestamp) -> DateGenerator {
    DateGenerator { timestamp }
  }
}

extension DependencyValues {
  /// Tells the calendar time: ``DateGenerator/system`` when live. Tests set
  /// ``DateGenerator/constant(_:)``; a test that does not gets a report that the date is
  /// unimplemented, and the time 1970-01-01.
  public var date: DateGenerator {
    get { self[DateKey.self] }
    set { self[DateKey.self] = newValue }
  }
}

private enum DateKey: DependencyKey {
  static var liveValue: DateGenerator { .system }
  static var testValue: DateGenerator {
    DateGenerator {
      DependencyValues.reportCurrent(
        Diagnostic(
          .unimplementedDependency,
          "unimplemented dependency 'date' used in a test; set one, for example "
            + "'$0.date = .constant(Timestamp(secondsSince1970: 0))'"))
      return Timestamp(sinceEpoch: .zero)
    }
  }
}
