/// The work of a ``Effect/run(priority:operation:catch:fileID:line:)`` effect.
@usableFromInline
final class EffectRun<Action: Sendable>: Sendable {
  let priority: TaskPriority?
  let operation: @Sendable (Pour<Action>) async throws -> Void
  let handler: (@Sendable (any Error, Pour<Action>) async -> Void)?
  /// The dependencies in force where the effect was created.
  let dependencies: DependencyValues
  @usableFromInline let origin: EffectOrigin

  @usableFromInline
  init(
    priority: TaskPriority?, operation: @escaping @Sendable (Pour<Action>) async throws -> Void,
    handler: (@Sendable (any Error, Pour<Action>) async -> Void)?, dependencies: DependencyValues,
    origin: EffectOrigin
  ) {
    self.priority = priority
    self.operation = operation
    self.handler = handler
    self.dependencies = dependencies
    self.origin = origin
  }

  func map<T: Sendable>(_ transform: @escaping @Sendable (Action) -> T) -> EffectRun<T> {
    let operation = self.operation
    var mappedHandler: (@Sendable (any Error, Pour<T>) async -> Void)?
    if let handler = self.handler {
      mappedHandler = { error, pour in await handler(error, pour.embedding(transform)) }
    }
    return EffectRun<T>(
      priority: priority,
      operation: { pour in try await operation(pour.embedding(transform)) },
      handler: mappedHandler,
      dependencies: dependencies, origin: origin)
  }

  /// This work, started only once `gate` returns `true`: a key's effect held until the entry of
  /// the action that started it is durable (see `KeyLog`). It ends at once, its `catch` not
  /// called, when `gate` returns `false`.
  func held(until gate: @escaping @Sendable () async -> Bool) -> EffectRun {
    let operation = self.operation
    return EffectRun(
      priority: priority,
      operation: { pour in
        guard await gate() else { return }
        try await operation(pour)
      },
      handler: handler, dependencies: dependencies, origin: origin)
  }
}

/// Where an effect was written: shown when a test ends with the effect still running.
@usableFromInline
struct EffectOrigin: Sendable, CustomStringConvertible {
  let fileID: StaticString
  let line: UInt

  @usableFromInline
  init(fileID: StaticString, line: UInt) {
    self.fileID = fileID
    self.line = line
  }

  @usableFromInline
  var description: String { "\(fileID):\(line)" }
}

/// How an effect is admitted under a cancellation id: see ``Effect/cancellable(id:policy:fileID:line:)``.
@usableFromInline
struct EffectAdmission: Sendable {
  let id: AnySendableHashable
  let policy: EffectPolicy
  /// Where `cancellable` was called: the origin of the effect while it waits its turn.
  let origin: EffectOrigin
}

/// What a `cancel` effect cancels.
@usableFromInline
enum EffectCancellation: Sendable {
  /// The effects under an id.
  case id(AnySendableHashable)
  /// Every effect of a child namespace.
  case namespace(AnySendableHashable)
  /// The effects of the children at a location whose id is not present.
  case absentChildren(ChildNamespace.Location, isPresent: @Sendable (AnySendableHashable) -> Bool)
}

/// What an effect tells its Station at once, without a task.
@usableFromInline
enum EffectAnnouncement: Sendable {
  case diagnostic(Diagnostic)
  case event(any Sendable)
}

/// A wait before an effect starts: the plumbing of `debounce`.
@usableFromInline
struct EffectDelay: Sendable {
  let clock: any Clock<Duration>
  let duration: Duration
  /// Where `debounce` was called: the origin of the effect while it waits.
  let origin: EffectOrigin
}

/// How an id's effects are throttled.
@usableFromInline
struct EffectThrottle: Sendable {
  let id: AnySendableHashable
  let clock: any Clock<Duration>
  let interval: Duration
  let latest: Bool
  /// Where `throttle` was called: the origin of the effect while it is held.
  let origin: EffectOrigin
}
