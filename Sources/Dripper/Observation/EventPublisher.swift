import Synchronization

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

/// Delivers a Station's events to its listeners.
@usableFromInline
final class EventPublisher: Sendable {
  private struct Listeners {
    var all: [UInt64: @Sendable (any Sendable) -> Void] = [:]
    var snapshot: [@Sendable (any Sendable) -> Void] = []
    var finishers: [UInt64: @Sendable () -> Void] = [:]
    var next: UInt64 = 0
  }

  private let listeners = Lock(Listeners())

  @usableFromInline
  init() {}

  /// Tells every listener of `event`; each keeps the events of its type.
  func emit(_ event: any Sendable) {
    let listeners = listeners.withLock { $0.snapshot }
    for listener in listeners { listener(event) }
  }

  /// The events of type `Event` emitted from now on.
  func events<Event: Sendable>(of type: Event.Type) -> AsyncStream<Event> {
    let (events, continuation) = AsyncStream.makeStream(of: Event.self)
    let number = listeners.withLock { listeners in
      defer { listeners.next += 1 }
      listeners.all[listeners.next] = { event in
        if let event = event as? Event { continuation.yield(event) }
      }
      listeners.finishers[listeners.next] = { continuation.finish() }
      listeners.snapshot = Array(listeners.all.values)
      return listeners.next
    }
    continuation.onTermination = { [self] _ in
      listeners.withLock { listeners in
        listeners.all[number] = nil
        listeners.finishers[number] = nil
        listeners.snapshot = Array(listeners.all.values)
      }
    }
    return events
  }

  var listenerCount: Int { listeners.withLock { $0.all.count } }

  /// Ends every listener's stream: the Station is gone.
  func finishAll() {
    let finishers = listeners.withLock { listeners in
      defer { listeners = Listeners() }
      return Array(listeners.finishers.values)
    }
    for finish in finishers { finish() }
  }
}
