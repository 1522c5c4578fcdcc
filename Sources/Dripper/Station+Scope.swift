extension Station {
  /// A Station for a child feature that shares this Station's actor.
  ///
  /// ```swift
  /// let counter = appStation.scope(state: \.counter, action: .counter)   // a StationOf<Counter>
  /// counter.pour(.increase)            // pours .counter(.increase) into the app
  /// let count = await counter.count    // reads state.counter.count
  /// ```
  ///
  /// Hand it to the part of a program that deals with the child alone. Its pours are embedded into
  /// the parent's actions and reduced by the parent's dripper, in order with everything else
  /// poured into the parent; reading its state projects the parent's. Its ``states`` are delivered
  /// each time the parent's are. It keeps the parent alive.
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state toChildState: any KeyPath<State, ChildState> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>
  ) -> Station<ChildState, ChildAction> {
    scoped(toChildState, toChildAction, isDuplicate: nil)
  }

  /// A Station for a child feature that shares this Station's actor; its ``states`` are
  /// delivered only when the child's state changes.
  public func scope<ChildState: Equatable & Sendable, ChildAction: Sendable>(
    state toChildState: any KeyPath<State, ChildState> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>
  ) -> Station<ChildState, ChildAction> {
    scoped(toChildState, toChildAction, isDuplicate: { $0 == $1 })
  }

  /// A Station for a child feature that shares this Station's actor, the action's case named as TCA
  /// names it (see ``CaseKeyPath``): `appStation.scope(state: \.counter, action: \.counter)`.
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state toChildState: any KeyPath<State, ChildState> & Sendable,
    action toChildAction: CaseKeyPath<Action, ChildAction>
  ) -> Station<ChildState, ChildAction> where Action: CasePathable {
    scope(state: toChildState, action: CasePath(toChildAction))
  }

  /// A Station for a child feature, the action's case named by a key path; its ``states`` are
  /// delivered only when the child's state changes.
  public func scope<ChildState: Equatable & Sendable, ChildAction: Sendable>(
    state toChildState: any KeyPath<State, ChildState> & Sendable,
    action toChildAction: CaseKeyPath<Action, ChildAction>
  ) -> Station<ChildState, ChildAction> where Action: CasePathable {
    scope(state: toChildState, action: CasePath(toChildAction))
  }

  private func scoped<ChildState: Sendable, ChildAction: Sendable>(
    _ toChildState: any KeyPath<State, ChildState> & Sendable,
    _ toChildAction: CasePath<Action, ChildAction>,
    isDuplicate: (@Sendable (ChildState, ChildState) -> Bool)?
  ) -> Station<ChildState, ChildAction> {
    Station<ChildState, ChildAction>(
      core: .scoped(
        ScopedCore(
          pour: { self.pour(toChildAction.embed($0)) },
          state: { await self[dynamicMember: toChildState] },
          reducePending: { await self.reducePending() },
          cancel: { self.cancelEffects(id: $0) },
          source: ProjectedSource(
            parent: source, station: self, key: SliceKey(toChildState), project: { $0[keyPath: toChildState] }
          ),
          isDuplicate: isDuplicate)))
  }
}

/// How a scoped Station reaches its parent. A class, so that a Station's core is one reference
/// whichever it is, and switching on it on every pour copies nothing.
@usableFromInline
final class ScopedCore<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let pour: @Sendable (Action) -> PourTask
  @usableFromInline let state: @Sendable () async -> State
  let reducePending: @Sendable () async -> Void
  /// Cancels effects by id in the root Station.
  let cancel: @Sendable (AnySendableHashable) -> Void
  @usableFromInline let source: any StateSource<State>
  /// Whether two child states are the same, when they are `Equatable`.
  @usableFromInline let isDuplicate: (@Sendable (State, State) -> Bool)?

  init(
    pour: @escaping @Sendable (Action) -> PourTask, state: @escaping @Sendable () async -> State,
    reducePending: @escaping @Sendable () async -> Void,
    cancel: @escaping @Sendable (AnySendableHashable) -> Void,
    source: any StateSource<State>, isDuplicate: (@Sendable (State, State) -> Bool)?
  ) {
    self.pour = pour
    self.state = state
    self.reducePending = reducePending
    self.cancel = cancel
    self.source = source
    self.isDuplicate = isDuplicate
  }
}

/// The states of a scoped Station: its parent's, projected.
struct ProjectedSource<Parent: Sendable, Child: Sendable>: StateSource {
  let parent: any StateSource<Parent>
  /// The parent Station, kept alive by whatever observes the child.
  let station: any Sendable
  let key: SliceKey
  let project: @Sendable (Parent) -> Child

  func stream<Value: Sendable>(
    key: SliceKey?, slice: @escaping @Sendable (Child) -> Value,
    isDuplicate: (@Sendable (Value, Value) -> Bool)?
  ) -> StateStream<Value> {
    let project = self.project
    let station = self.station
    let stream = parent.stream(
      key: key.map { self.key.appending($0) } ?? (isDuplicate == nil ? nil : self.key),
      slice: { slice(project($0)) }, isDuplicate: isDuplicate)
    return StateStream(bufferingPolicy: stream.bufferingPolicy) { continuation in
      await stream.subscribe(continuation)
      _ = station
    }
  }

  func derived<Value: Sendable>(
    slice: @escaping @Sendable (Child) -> Value, isDuplicate: (@Sendable (Value, Value) -> Bool)?,
    owner: any Sendable
  ) -> Derived<Value> where Value: Equatable {
    let project = self.project
    return parent.derived(slice: { slice(project($0)) }, isDuplicate: isDuplicate, owner: owner)
  }

  var events: EventPublisher { parent.events }
}
