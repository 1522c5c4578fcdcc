/// How much a ``TestStation`` requires a test to assert.
public enum Exhaustivity: Equatable, Sendable {
  /// Everything: every state change, every action received, every effect finished or cancelled.
  case on
  /// Only what the test asserts; with `showSkippedAssertions`, what it did not assert is printed.
  case off(showSkippedAssertions: Bool)

  /// Only what the test asserts, silently.
  public static let off = Exhaustivity.off(showSkippedAssertions: false)
}
