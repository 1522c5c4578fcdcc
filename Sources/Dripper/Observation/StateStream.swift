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
///
/// A root Station's ``Station/states`` are read as the consumer asks for them: each value is the
/// state when the consumer's `next()` resumes, taken on the Station's actor, so the state is copied
/// at most once per value taken, never once per action (see ``Station/states``).
public struct StateStream<Element: Sendable>: AsyncSequence, Sendable {
  /// A `StateStream` never throws.
  public typealias Failure = Never

  /// Registers the continuation with the Station, yielding the current value first.
  let subscribe: @Sendable (AsyncStream<Element>.Continuation) async -> Void
  let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy
  /// How to read the newest value when the consumer asks, for the default buffering of a root
  /// Station's states; `nil` for a stream that is pushed each value.
  let puller: StatePuller<Element>?

  @usableFromInline
  init(
    bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .bufferingNewest(1),
    subscribe: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void
  ) {
    self.bufferingPolicy = bufferingPolicy
    self.subscribe = subscribe
    self.puller = nil
  }

  init(
    pulling puller: StatePuller<Element>,
    subscribe: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void
  ) {
    self.bufferingPolicy = .bufferingNewest(1)
    self.subscribe = subscribe
    self.puller = puller
  }

  /// The same values, buffered by `policy`: `.unbounded` to see every value however slow the
  /// consumer is. Each value is then kept from its reduction until it is taken, which, for a large
  /// state, costs a copy of it per reduction.
  public func buffering(_ policy: AsyncStream<Element>.Continuation.BufferingPolicy) -> StateStream {
    StateStream(bufferingPolicy: policy, subscribe: subscribe)
  }

  /// Creates the iterator; the subscription starts at its first `next()`.
  public func makeAsyncIterator() -> Iterator {
    if let puller { return Iterator(pulling: puller) }
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
    return Iterator(subscribe: subscribe, continuation: continuation, base: stream.makeAsyncIterator())
  }

  /// Iterates a ``StateStream``.
  public struct Iterator: AsyncIteratorProtocol {
    var subscribe: (@Sendable (AsyncStream<Element>.Continuation) async -> Void)?
    let continuation: AsyncStream<Element>.Continuation?
    var base: AsyncStream<Element>.Iterator?
    /// For a pulling stream: its reader, made at the first `next()`, and the version it took last.
    var puller: StatePuller<Element>?
    var reader: PullingReader<Element>?
    var seen: UInt64?
    var isDone = false

    init(
      subscribe: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void,
      continuation: AsyncStream<Element>.Continuation, base: AsyncStream<Element>.Iterator
    ) {
      self.subscribe = subscribe
      self.continuation = continuation
      self.base = base
    }

    init(pulling puller: StatePuller<Element>) {
      self.continuation = nil
      self.puller = puller
    }

    /// The next value, or `nil` once the Station is gone or the task is cancelled.
    public mutating func next() async -> Element? {
      if let puller { return await pull(puller) }
      if let subscribe, let continuation {
        self.subscribe = nil
        await subscribe(continuation)
      }
      return await base?.next()
    }

    /// The state as it is now, once it is newer than the one taken last; `nil` once the Station is
    /// gone and every state was taken, or the task is cancelled.
    private mutating func pull(_ puller: StatePuller<Element>) async -> Element? {
      guard !isDone else { return nil }
      if reader == nil { reader = PullingReader(puller) }
      while true {
        if let seen {
          await puller.wait(seen)
          if Task.isCancelled { return finish() }
        }
        let (value, version, isFinished) = await puller.read()
        if version != seen {
          seen = version
          return value
        }
        if isFinished || Task.isCancelled { return finish() }
      }
    }

    private mutating func finish() -> Element? {
      isDone = true
      reader = nil
      return nil
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
