extension Station {
  /// TCA's `store.send(_:)`: a Station's actions are poured. Written `send`, the compiler names
  /// the replacement instead of guessing at an overload.
  @available(*, unavailable, renamed: "pour(_:)", message: "a Station's actions are poured")
  @discardableResult
  public func send(_ action: Action) -> PourTask { pour(action) }
}
