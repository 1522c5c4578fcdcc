extension DependencyValues {
  /// The clock effects wait on: a `ContinuousClock` when live. Tests set a ``TestClock`` (time
  /// moves when the test says) or an ``ImmediateClock`` (sleeps return at once); a test that sets
  /// neither gets a report that the clock is unimplemented, and immediate sleeps.
  public var clock: any Clock<Duration> {
    get { self[ClockKey.self] }
    set { self[ClockKey.self] = newValue }
  }

  /// Tells the calendar time: ``DateGenerator/system`` when live. Tests set
  /// ``DateGenerator/constant(_:)``; a test that does not gets a report that the date is
  /// unimplemented, and the time 1970-01-01.
  public var date: DateGenerator {
    get { self[DateKey.self] }
    set { self[DateKey.self] = newValue }
  }

  /// Makes identifiers: ``UUIDGenerator/random`` when live, ``UUIDGenerator/incrementing`` in tests.
  public var uuid: UUIDGenerator {
    get { self[UUIDKey.self] }
    set { self[UUIDKey.self] = newValue }
  }

  /// Random numbers: ``RandomGenerator/system`` when live, ``RandomGenerator/seeded(_:)`` with
  /// seed 0 in tests.
  public var random: RandomGenerator {
    get { self[RandomKey.self] }
    set { self[RandomKey.self] = newValue }
  }
}

private enum ClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { ContinuousClock() }
  static var testValue: any Clock<Duration> { UnimplementedClock() }
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

private enum UUIDKey: DependencyKey {
  static var liveValue: UUIDGenerator { .random }
  static var testValue: UUIDGenerator { .incrementing }
}

private enum RandomKey: DependencyKey {
  static var liveValue: RandomGenerator { .system }
  static var testValue: RandomGenerator { .seeded(0) }
}
