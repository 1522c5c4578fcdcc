/// Values from a Station, as they change: the current value first, then each new one.
///
/// ``Station/states``, ``Station/observe(_:)-(KeyPath<State,Value>Sendable)`` and
/// ``Derived/values`` return these:
///
/// ```swift
/// for await count in station.observe(\.count) {
///   print("count:", count)
/// }
/// ```
///
/// The subscription starts when iteration starts and ends when it ends, or when the iterating task
/// is cancelled. By default a slow consumer sees the latest value rather than a backlog; any number
/// of consumers can iterate at once, each with its own subscription.
public struct StateStream<Element: Sendable>: AsyncSequence, Sendable {
  /// A `StateStream` never throws.
  public typealias Failure = Never

  /// Registers the continuation with the Station, yielding the current value first.
  let subscribe: @Sendable (AsyncStream<Element>.Continuation) async -> Void
  let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy

  @usableFromInline
  init(
    bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .bufferingNewest(1),
    subscribe: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void
  ) {
    self.bufferingPolicy = bufferingPolicy
    self.subscribe = subscribe
  }

  /// The same values, buffered by `policy`: `.unbounded` to see every value however slow the
  /// consumer is.
  public func buffering(_ policy: AsyncStream<Element>.Continuation.BufferingPolicy) -> StateStream {
    StateStream(bufferingPolicy: policy, subscribe: subscribe)
  }

  /// Creates the iterator; the subscription starts at its first `next()`.
  public func makeAsyncIterator() -> Iterator {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
    return Iterator(subscribe: subscribe, continuation: continuation, base: stream.makeAsyncIterator())
  }

  /// Iterates a ``StateStream``.
  public struct Iterator: AsyncIteratorProtocol {
    var subscribe: (@Sendable (AsyncStream<Element>.Continuation) async -> Void)?
    let continuation: AsyncStream<Element>.Continuation
    var base: AsyncStream<Element>.Iterator

    /// The next value, or `nil` once the Station is gone or the task is cancelled.
    public mutating func next() async -> Element? {
      if let subscribe {
        self.subscribe = nil
        await subscribe(continuation)
      }
      return await base.next()
    }
  }
}

extension AsyncStream.Continuation.BufferingPolicy {
  /// The same policy for another element type.
  init<Other>(_ other: AsyncStream<Other>.Continuation.BufferingPolicy) {
    switch other {
    case .unbounded: self = .unbounded
    case .bufferingOldest(let count): self = .bufferingOldest(count)
    case .bufferingNewest(let count): self = .bufferingNewest(count)
    @unknown default: self = .bufferingNewest(1)
    }
  }
}
