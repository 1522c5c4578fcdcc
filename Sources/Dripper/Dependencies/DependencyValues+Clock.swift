extension DependencyValues {
  /// The clock effects wait on: a `ContinuousClock` when live. Tests set a ``TestClock`` (time
  /// moves when the test says) or an ``ImmediateClock`` (sleeps return at once); a test that sets
  /// neither gets a report that the clock is unimplemented, and immediate sleeps.
  public var clock: any Clock<Duration> {
    get { self[ClockKey.self] }
    set { self[ClockKey.self] = newValue }
  }
}

private enum ClockKey: DependencyKey {
  static var liveValue: any Clock<Duration> { ContinuousClock() }
  static var testValue: any Clock<Duration> { UnimplementedClock() }
}
