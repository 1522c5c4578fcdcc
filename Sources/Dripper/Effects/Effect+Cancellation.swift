extension Effect {
  /// Makes the effect cancellable with ``cancel(id:)``, optionally cancelling effects already running
  /// under the same id first.
  ///
  /// ```swift
  /// case .searchChanged(let query):
  ///   state.query = query
  ///   return .run { pour in
  ///     await pour(.results(try await api.search(query)))
  ///   }
  ///   .cancellable(id: SearchID(), cancelInFlight: true)
  /// ```
  ///
  /// Ids are scoped to their Station, and to their element in a ``Dripper/forEach(_:action:element:)``
  /// or their child in an ``Dripper/ifLet(_:action:then:)``: the same id used by two rows of a list
  /// never cancels the other row's effects.
  ///
  /// - Parameters:
  ///   - id: Any hashable value; a type of its own (`struct SearchID: Hashable {}`) avoids clashes.
  ///   - cancelInFlight: Whether to cancel the effects running under `id` before this one starts.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    cancellable(id: id, policy: cancelInFlight ? .cancelInFlight : .concurrent)
  }

  /// Makes the effect cancellable with ``cancel(id:)``, with a policy for effects that share the id.
  ///
  /// ```swift
  /// case .uploadTapped(let file):
  ///   return .run { _ in try await uploader.upload(file) }
  ///     .cancellable(id: UploadID(), policy: .enqueue)   // one upload at a time, in order
  /// ```
  ///
  /// See ``EffectPolicy`` for the four policies and when to use each.
  public func cancellable(id: some Hashable & Sendable, policy: EffectPolicy) -> Self {
    if case .none = operation { return self }
    return Self(.cancellable(AnySendableHashable(id), policy, self))
  }

  /// Cancels the effects running under `id`, those waiting their turn under it, and the parts of a
  /// `concatenate` that would run under it and have not started.
  ///
  /// ```swift
  /// case .stopTapped:
  ///   return .cancel(id: TimerID())
  /// ```
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(AnySendableHashable(id)))
  }
}
