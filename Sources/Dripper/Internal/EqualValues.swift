/// Whether two values are equal by `==`, or `nil` when the first is not `Equatable`: for values
/// whose type is known only at run time (a binding's value, a slice a view reads).
func equalValues(_ one: Any, _ other: Any) -> Bool? {
  guard let one = one as? any Equatable else { return nil }
  return one.isEqual(to: other)
}

extension Equatable {
  /// Whether `other` is a value of this type equal to this one: how two existentials compare when
  /// the first's type is known to be `Equatable` (an `AnySendableHashable`'s base).
  func isEqual(to other: Any) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}
