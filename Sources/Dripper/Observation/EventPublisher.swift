import Synchronization

/// Delivers a Station's events to its listeners. Adding and removing a listener cost O(1).
@usableFromInline
final class EventPublisher: Sendable {
  private struct Listener: Sendable {
    let deliver: @Sendable (any Sendable) -> Void
    let finish: @Sendable () -> Void
  }

  private struct Listeners: Sendable {
    var all = MemberList<Listener>()
    /// The Station is gone: listeners added from now on are finished at once.
    var isClosed = false
  }

  private let listeners = Lock(Listeners())

  @usableFromInline
  init() {}

  /// Tells every listener of `event`; each keeps the events of its type.
  func emit(_ event: any Sendable) {
    let listeners = listeners.withLock { $0.all.members }
    for listener in listeners { listener.deliver(event) }
  }

  /// The events of type `Event` emitted from now on.
  func events<Event: Sendable>(of type: Event.Type) -> AsyncStream<Event> {
    let (events, continuation) = AsyncStream.makeStream(of: Event.self)
    let listener = Listener(
      deliver: { event in
        if let event = event as? Event { continuation.yield(event) }
      },
      finish: { continuation.finish() })
    let number = listeners.withLock { $0.isClosed ? nil : $0.all.add(listener) }
    guard let number else {
      continuation.finish()
      return events
    }
    continuation.onTermination = { [self] _ in
      listeners.withLock { _ = $0.all.remove(number) }
    }
    return events
  }

  /// Ends every listener's stream, and those of listeners added from now on: the Station is gone.
  func finishAll() {
    let all = listeners.withLock { listeners in
      listeners.isClosed = true
      return listeners.all.removeAll()
    }
    for listener in all { listener.finish() }
  }
}
