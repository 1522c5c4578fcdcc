/// Work a ``Dripper`` asks for after a reduction: actions to reduce next, and asynchronous work that
/// pours actions back into the Station.
///
/// A reduction returns ``none`` when there is nothing to do, ``send(_:)`` to reduce another action
/// right away, or ``run(priority:operation:catch:fileID:line:)`` for asynchronous work. Effects
/// compose with ``merge(_:)-(Effect<Action>...)`` (run together) and ``concatenate(_:)-(Effect<Action>...)`` (run one
/// after another), and can be made cancellable by id with ``cancellable(id:cancelInFlight:fileID:line:)``.
///
/// ```swift
/// case .refresh:
///   state.isLoading = true
///   return .run { pour in
///     let items = try await api.fetchItems()
///     await pour(.loaded(items))
///   } catch: { error, pour in
///     await pour(.failed(String(describing: error)))
///   }
/// ```
///
/// Effects run as tasks tracked by the Station: cancelling the ``PourTask`` that started them, their
/// id, their child feature, or releasing the Station cancels them.
public struct Effect<Action: Sendable>: Sendable {
  @usableFromInline let operation: Operation

  @inlinable
  init(_ operation: Operation) { self.operation = operation }

  /// Whether the effect is ``none``: the common case, checked after every reduction.
  @inlinable
  var isNone: Bool {
    if case .none = operation { true } else { false }
  }

  /// The shape of an effect: a tree the Station's interpreter walks after each reduction (see
  /// `StateHandler+Interpreter.swift`).
  ///
  /// Every reduction returns an effect, so the enum is kept small: payloads larger than a word are
  /// boxed (`indirect`). So is `.send`'s action, the only payload of the action's type: the
  /// enum's layout then does not depend on `Action`, and the interpreter's generic code (the walk
  /// of `merge`, `cancellable`, `concatenate`…) handles effects without looking up their metadata
  /// at each step (a uprobe on `swift_getGenericMetadata` over `dripper-bench
  /// --profile-cancellables`: 17 lookups per `.run { … }.cancellable(id:)` before, 3 after, 1 once
  /// the walk's entry became inlinable). A `.send` pays one allocation for its box instead.
  ///
  /// What the cases carry is in `Effects/Effect+Payloads.swift`.
  @usableFromInline
  enum Operation: Sendable {
    case none
    indirect case send(Action)
    case run(EffectRun<Action>)
    case merge([Effect])
    case concatenate([Effect])
    /// Runs the effect under a cancellation id, admitted by the id's policy.
    indirect case cancellable(EffectAdmission, Effect)
    /// Cancels the effects under an id, or every effect of a child namespace.
    indirect case cancel(EffectCancellation)
    /// Runs the effect inside a child feature's namespace (an `ifLet` child, a `forEach` element).
    indirect case namespaced(AnySendableHashable, Effect)
    /// Waits on a clock, then runs the effect.
    indirect case delayed(EffectDelay, Effect)
    /// Runs the effect at most once per interval for an id.
    indirect case throttled(EffectThrottle, Effect)
    /// Tells the Station something at once: a diagnostic to report, an event to emit.
    indirect case announce(EffectAnnouncement)
    /// A reminder set or cancelled, or a reply: taken out by a ``StationHost``'s key as it
    /// reduces, a ``Diagnostic`` anywhere else (see ``Effect/remind(_:at:id:)``).
    indirect case host(HostedEffect<Action>)
  }

  // MARK: - Creating effects

  /// No effect: the reduction is all there is to do.
  @inlinable
  public static var none: Self { Self(.none) }

  /// Reduces `action` right after the action that returned this effect, before any other queued
  /// action.
  ///
  /// Prefer calling shared logic directly where you can: `send` costs a second reduction, and an
  /// allocation for the action it carries.
  public static func send(_ action: Action) -> Self { Self(.send(action)) }

  /// Runs asynchronous work that can pour actions back into the Station.
  ///
  /// ```swift
  /// return .run { pour in
  ///   for await reading in sensor.readings {
  ///     await pour(.reading(reading))
  ///   }
  /// }
  /// ```
  ///
  /// The work runs in its own task with the dependencies in force where the effect was created.
  /// Cancelling it (by id, by its ``PourTask``, or by releasing the Station) cancels that task;
  /// actions it pours after that are dropped. A `CancellationError` is not a failure.
  ///
  /// - Parameters:
  ///   - priority: The priority of the effect's task; `nil` for none.
  ///   - operation: The work. ``Pour/callAsFunction(_:)`` returns once the action is reduced.
  ///   - handler: Turns an error thrown by `operation` into actions. Without one, the error is
  ///     reported as a ``Diagnostic`` and the Station carries on.
  ///   - fileID: Where the effect was written, named when a test ends with it still running.
  ///   - line: The line where the effect was written.
  @inlinable
  public static func run(
    priority: TaskPriority? = nil,
    operation: @escaping @Sendable (_ pour: Pour<Action>) async throws -> Void,
    catch handler: (@Sendable (_ error: any Error, _ pour: Pour<Action>) async -> Void)? = nil,
    fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Self {
    Self(
      .run(
        EffectRun(
          priority: priority, operation: operation, handler: handler,
          dependencies: DependencyValues.current.captured,
          origin: EffectOrigin(fileID: fileID, line: line))))
  }

  /// Runs effects at the same time.
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// Runs effects at the same time.
  ///
  /// Builds one flat merge, in time linear in the number of effects.
  public static func merge(_ effects: some Sequence<Self>) -> Self {
    var parts: [Self] = []
    for effect in effects {
      switch effect.operation {
      case .none: continue
      case .merge(let nested): parts.append(contentsOf: nested)
      default: parts.append(effect)
      }
    }
    return parts.count <= 1 ? parts.first ?? .none : Self(.merge(parts))
  }

  /// Runs this effect and `other` at the same time.
  @inlinable
  public func merge(with other: Self) -> Self {
    if other.isNone { return self }
    if isNone { return other }
    return merged(with: other)
  }

  @usableFromInline
  func merged(with other: Self) -> Self {
    switch (operation, other.operation) {
    case (.none, _): other
    case (_, .none): self
    case (.merge(let first), .merge(let second)): Self(.merge(first + second))
    case (.merge(let first), _): Self(.merge(first + [other]))
    case (_, .merge(let second)): Self(.merge([self] + second))
    default: Self(.merge([self, other]))
    }
  }

  /// Runs effects one after another: each starts when the previous one has finished.
  public static func concatenate(_ effects: Self...) -> Self { concatenate(effects) }

  /// Runs effects one after another: each starts when the previous one has finished.
  ///
  /// Builds one flat sequence, in time linear in the number of effects.
  public static func concatenate(_ effects: some Sequence<Self>) -> Self {
    var parts: [Self] = []
    for effect in effects {
      switch effect.operation {
      case .none: continue
      case .concatenate(let nested): parts.append(contentsOf: nested)
      default: parts.append(effect)
      }
    }
    return parts.count <= 1 ? parts.first ?? .none : Self(.concatenate(parts))
  }

  /// Runs `other` once this effect has finished.
  public func concatenate(with other: Self) -> Self {
    switch (operation, other.operation) {
    case (.none, _): other
    case (_, .none): self
    case (.concatenate(let first), .concatenate(let second)): Self(.concatenate(first + second))
    case (.concatenate(let first), _): Self(.concatenate(first + [other]))
    case (_, .concatenate(let second)): Self(.concatenate([self] + second))
    default: Self(.concatenate([self, other]))
    }
  }

  // MARK: - Transforming effects

  /// Transforms the actions the effect pours: how a parent embeds a child's effects.
  ///
  /// ```swift
  /// Counter().reduce(into: &state.counter, action: action).map(AppFeature.Action.counter)
  /// ```
  public func map<T: Sendable>(_ transform: @escaping @Sendable (Action) -> T) -> Effect<T> {
    rebuilt(sending: transform) { $0.map(transform) }
  }

  /// The same tree with each action sent turned by `send` and each `run` by `run`: the one walk
  /// that ``map(_:)`` and the observers share.
  @usableFromInline
  func rebuilt<T: Sendable>(
    sending send: (Action) -> T, running run: (EffectRun<Action>) -> EffectRun<T>
  ) -> Effect<T> {
    switch operation {
    case .none: .none
    case .send(let action): Effect<T>(.send(send(action)))
    case .run(let effect): Effect<T>(.run(run(effect)))
    case .merge(let effects): Effect<T>(.merge(effects.map { $0.rebuilt(sending: send, running: run) }))
    case .concatenate(let effects):
      Effect<T>(.concatenate(effects.map { $0.rebuilt(sending: send, running: run) }))
    case .cancellable(let admission, let effect):
      Effect<T>(.cancellable(admission, effect.rebuilt(sending: send, running: run)))
    case .cancel(let cancellation): Effect<T>(.cancel(cancellation))
    case .namespaced(let component, let effect):
      Effect<T>(.namespaced(component, effect.rebuilt(sending: send, running: run)))
    case .delayed(let delay, let effect):
      Effect<T>(.delayed(delay, effect.rebuilt(sending: send, running: run)))
    case .throttled(let throttle, let effect):
      Effect<T>(.throttled(throttle, effect.rebuilt(sending: send, running: run)))
    case .announce(let announcement): Effect<T>(.announce(announcement))
    case .host(let effect): Effect<T>(.host(effect.map(send)))
    }
  }

  /// Runs this effect inside a child feature's namespace: its ids cannot collide with the parent's
  /// or a sibling's, and cancelling the namespace cancels it.
  @usableFromInline
  func namespaced(_ component: AnySendableHashable) -> Self {
    if case .none = operation { return self }
    return Self(.namespaced(component, self))
  }

  /// Cancels every effect of a child feature's namespace.
  @usableFromInline
  static func cancelNamespace(_ component: AnySendableHashable) -> Self {
    Self(.cancel(.namespace(component)))
  }

  /// Cancels the effects of the children at `location` (the elements of a list) that `isPresent`
  /// says are gone: how a `forEach` whose list was replaced wholesale cancels the effects of the
  /// elements that went. The Station asks only about the children with effects.
  @usableFromInline
  static func cancelChildren(
    at location: ChildNamespace.Location, keeping isPresent: @escaping @Sendable (AnySendableHashable) -> Bool
  ) -> Self {
    Self(.cancel(.absentChildren(location, isPresent: isPresent)))
  }

  /// Reports a diagnostic through the Station that runs the reduction: to its observers'
  /// `diagnostic` callbacks, to a ``DripperObserver`` set as the default, or to standard error; a
  /// `TestStation` records it as a test failure. Nothing else happens: the effect does no work.
  ///
  /// ```swift
  /// case .importFile(let text):
  ///   guard let rows = parse(text) else {
  ///     return .report(Diagnostic(.other, "ignored a file that is not CSV"))
  ///   }
  /// ```
  public static func report(_ diagnostic: Diagnostic) -> Self { Self(.announce(.diagnostic(diagnostic))) }
}
