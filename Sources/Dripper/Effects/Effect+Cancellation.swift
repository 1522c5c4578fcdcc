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
  /// Ids are scoped to their Station, and to their element in a ``Dripper/forEach(_:action:element:)-(_,CasePath<Self.Action,IdentifiedAction<ID,ElementAction>>,_)``
  /// or their child in an ``Dripper/ifLet(_:action:then:)-9swoe``: the same id used by two rows of a list
  /// never cancels the other row's effects.
  ///
  /// - Parameters:
  ///   - id: Any hashable value; a type of its own (`struct SearchID: Hashable {}`) avoids clashes.
  ///   - cancelInFlight: Whether to cancel the effects running under `id` before this one starts.
  ///   - fileID: Where the call is written, named if a test ends with the effect still waiting.
  ///   - line: The line of the call.
  public func cancellable(
    id: some Hashable & Sendable, cancelInFlight: Bool = false, fileID: StaticString = #fileID,
    line: UInt = #line
  ) -> Self {
    cancellable(id: id, policy: cancelInFlight ? .cancelInFlight : .concurrent, fileID: fileID, line: line)
  }

  /// Makes the effect cancellable with ``cancel(id:)``, with a policy for effects that share the id.
  ///
  /// ```swift
  /// case .uploadTapped(let file):
  ///   return .run { _ in try await uploader.upload(file) }
  ///     .cancellable(id: UploadID(), policy: .enqueue)   // one upload at a time, in order
  /// ```
  ///
  /// See ``EffectPolicy`` for the four policies and when to use each. An effect waiting its turn
  /// under `.enqueue` is a running effect like any other: a test that ends with it waiting names
  /// the line of this call.
  ///
  /// - Parameters:
  ///   - id: Any hashable value; a type of its own avoids clashes.
  ///   - policy: What happens when effects already run under `id`.
  ///   - fileID: Where the call is written, named if a test ends with the effect still waiting.
  ///   - line: The line of the call.
  public func cancellable(
    id: some Hashable & Sendable, policy: EffectPolicy, fileID: StaticString = #fileID, line: UInt = #line
  ) -> Self {
    if case .none = operation { return self }
    let admission = EffectAdmission(
      id: AnySendableHashable(id), policy: policy, origin: EffectOrigin(fileID: fileID, line: line))
    return Self(.cancellable(admission, self))
  }

  /// Cancels the effects running under `id`, those waiting their turn under it, and the parts of a
  /// `concatenate` that would run under it and have not started.
  ///
  /// ```swift
  /// case .stopTapped:
  ///   return .cancel(id: TimerID())
  /// ```
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(.cancel(.id(AnySendableHashable(id))))
  }

  /// Cancels the effects running or waiting under each of `ids`.
  ///
  /// ```swift
  /// enum Work: Hashable, Sendable { case sync, upload }
  /// …
  /// case .signOut:
  ///   return .cancel(ids: [Work.sync, .upload])
  /// ```
  public static func cancel(ids: some Sequence<some Hashable & Sendable>) -> Self {
    .merge(ids.map { cancel(id: $0) })
  }
}
