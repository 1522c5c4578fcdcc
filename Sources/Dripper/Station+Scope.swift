extension Station {
  /// A Station for a child feature that shares this Station's ``StateHandler``.
  ///
  /// ```swift
  /// let counter = appStation.scope(state: \.counter, action: .counter)   // a StationOf<Counter>
  /// counter.pour(.increase)            // pours .counter(.increase) into the app
  /// let count = await counter.count    // reads state.counter.count
  /// ```
  ///
  /// Hand it to the part of a program that deals with the child alone. Its pours are embedded into
  /// the parent's actions and reduced by the parent's dripper, in order with everything else
  /// poured into the parent; reading its state projects the parent's. It keeps the parent alive.
  public func scope<ChildState: Sendable, ChildAction: Sendable>(
    state toChildState: any KeyPath<State, ChildState> & Sendable,
    action toChildAction: CasePath<Action, ChildAction>
  ) -> Station<ChildState, ChildAction> {
    Station<ChildState, ChildAction>(
      core: .scoped(
        ScopedCore(
          pour: { self.pour(toChildAction.embed($0)) },
          state: { await self[dynamicMember: toChildState] })))
  }
}

/// How a scoped Station reaches its parent.
@usableFromInline
struct ScopedCore<State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let pour: @Sendable (Action) -> PourTask
  @usableFromInline let state: @Sendable () async -> State
}
