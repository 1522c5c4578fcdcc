#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// Tells the time as a Foundation `Date`: the ``DependencyValues/date`` dependency, as in TCA.
///
/// ```swift
/// @Dependency(\.date) var date
/// …
/// state.lastSaved = date.now
/// ```
public struct DateGenerator: Sendable {
  private var generate: @Sendable () -> Date

  /// Creates a generator from a closure.
  public init(_ generate: @escaping @Sendable () -> Date) {
    self.generate = generate
  }

  /// The current time. Setting it fixes the time, as TCA's does:
  ///
  /// ```swift
  /// station.dependencies.date.now = Date(timeIntervalSince1970: 1_234_567_890)
  /// ```
  public var now: Date {
    get { generate() }
    set { generate = { newValue } }
  }

  /// The current time.
  public func callAsFunction() -> Date { generate() }

  /// The system's calendar time: `Date()`.
  public static var system: DateGenerator {
    DateGenerator { Date() }
  }

  /// Always the same time.
  ///
  /// ```swift
  /// $0.date = .constant(Date(timeIntervalSince1970: 1_234_567_890))
  /// ```
  public static func constant(_ date: Date) -> DateGenerator {
    DateGenerator { date }
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
            + "'$0.date = .constant(Date(timeIntervalSince1970: 0))'"))
      return Date(timeIntervalSince1970: 0)
    }
  }
}
