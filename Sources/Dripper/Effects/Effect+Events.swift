extension Effect {
  /// Emits a one-off event to whoever listens with ``Station/events(of:)``.
  ///
  /// Events are what a feature says to the outside world without keeping it in its state: "show a
  /// toast", "job 42 finished", "play a sound". Actions come in and change the state; events go out
  /// and change nothing. A listener receives the events emitted while it listens, in order, none
  /// missed; nobody replays them later.
  ///
  /// ```swift
  /// case .saveSucceeded:
  ///   state.isSaving = false
  ///   return .emit(Toast("Saved"))
  /// …
  /// for await toast in station.events(of: Toast.self) { show(toast) }
  /// ```
  public static func emit(_ event: some Sendable) -> Self {
    Self(.announce(.event(event)))
  }
}
