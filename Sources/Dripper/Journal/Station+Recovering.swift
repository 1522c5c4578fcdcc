extension Station {
  /// A Station whose state survives restarts and crashes: recovered from `durable`'s snapshot and
  /// journal, then recording every action it reduces to it. See ``DurableJournal``.
  ///
  /// A torn last line the recovery ignored, and a state that does not hash as recorded, are
  /// reported as ``Diagnostic``s of the new Station (on standard error, unless a reporter takes
  /// them), and are in ``DurableJournal/recovery``.
  ///
  /// ```swift
  /// let station = try Station.recovering(from: durable, initialState: Todos.State()) { Todos() }
  /// if let torn = durable.recovery?.tornTail { print("note:", torn) }
  /// ```
  ///
  /// - Throws: ``JournalError`` when the folder, the snapshot or the journal cannot be read, is
  ///   corrupt, or an entry does not decode; nothing on disk has changed then.
  @inlinable
  public static func recovering<D: Dripper<State, Action>>(
    from durable: DurableJournal<State, Action>,
    initialState: @autoclosure () -> State,
    observers: [DripperObserver<State, Action>] = [],
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws(JournalError) -> Station<State, Action> {
    // Inlinable, so that the Station is made where its types are known: its reductions then run
    // as code specialized for them, as a Station made with `init` does.
    let feature = dripper()
    let (state, journal) = try durable.recover(
      initialState: initialState, dripper: feature, prepare: prepareDependencies)
    let station = Station(
      initialState: state, observers: observers, dripper: { durable.recording(feature, to: journal) },
      withDependencies: prepareDependencies)
    durable.reportRecovery(to: station)
    return station
  }
}

extension DurableJournal {
  /// Reports what the last recovery found worth saying to the Station it made.
  @usableFromInline
  func reportRecovery(to station: Station<State, Action>) {
    guard let recovery, let handler = station.rootHandler else { return }
    if let torn = recovery.tornTail { handler.report(Diagnostic(.other, torn)) }
    if let divergence = recovery.divergence {
      handler.report(
        Diagnostic(
          .other,
          "the state recovered from \(directory) differs from the one its journal recorded at entry "
            + "\(divergence.sequence) (\(divergence.action)); the diff is in the recovery's divergence"))
    }
  }
}
