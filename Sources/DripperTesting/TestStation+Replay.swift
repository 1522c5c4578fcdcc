import Dripper

extension TestStation {
  /// Replays a journal's entries, asserting each recorded state in turn: a session recorded in
  /// the field (see `Dripper/recording(to:hashing:encode:)`) becomes a test.
  ///
  /// ```swift
  /// @Test func theSessionFromTicket4411() async throws {
  ///   let journal = try Journal.read(at: fixture("ticket-4411.journal"))
  ///   let station = TestStation(initialState: Todos.State()) { Todos() }
  ///   await station.replay(journal.entries, hashing: .dump) { try Todos.Action(journaled: $0) }
  ///   await station.pour(.clearCompleted) { $0.todos = [] }   // and on from where it left off
  /// }
  /// ```
  ///
  /// Each entry's action is reduced as if poured, with its effects not run: the actions they
  /// poured in the field are entries of the journal themselves. When the entry holds a state hash
  /// and `stateHash` is given, the state the action leaves must hash to it; the first that does
  /// not fails the test with a diff that tells a reducer reading something outside its action and
  /// state (a clock, a random number) from one that changed since the recording, and the replay
  /// stops there. An action that does not decode fails the test and stops the replay before it.
  ///
  /// The replayed states count as asserted: the test goes on from the last of them, as after a
  /// `pour`. Give `stateHash` the hash the recording used.
  ///
  /// - Parameters:
  ///   - entries: The entries, in order, from the state the test started in.
  ///   - stateHash: The hash the recording kept; `nil` checks no state.
  ///   - decode: An entry's action from its text.
  ///   - fileID: Where failures are reported: the call's file, by default.
  ///   - filePath: The call's file.
  ///   - line: The call's line.
  ///   - column: The call's column.
  public nonisolated(nonsending) func replay(
    _ entries: some Sequence<JournalEntry>,
    hashing stateHash: StateHash<State>? = nil,
    decode: (String) throws -> Action,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    progress.withLock { $0.skippedInFlight = false }
    reportDiagnostics(at: location)
    defer { reportDiagnostics(at: location) }
    handleUnreceived(before: "replaying a journal", at: location)
    for entry in entries {
      guard !isDismissed else {
        reporter.fail(
          "Can't replay entry \(entry.sequence) (\(entry.action)): the feature dismissed itself, and takes no more actions.",
          at: location)
        return
      }
      let action: Action
      do {
        action = try decode(entry.action)
      } catch {
        reporter.fail(
          "Entry \(entry.sequence) of the journal (\(entry.action)) could not be decoded: \(error)",
          at: location)
        return
      }
      station.pour(.replayed(action))
      await station.reducePending()
      let asserted = progress.withLock { $0.asserted }
      let reductions = log.reductions(from: asserted)
      guard let index = reductions.firstIndex(where: { !$0.wasReceived }) else {
        reporter.fail("The Station did not reduce entry \(entry.sequence) (\(entry.action)).", at: location)
        return
      }
      // Effects started before the replay may have poured since: account for them as `pour` does.
      let before = index == 0 ? progress.withLock { $0.expected.state } : reductions[index - 1].state
      let reduction = reductions[index]
      progress.withLock { progress in
        progress.asserted = asserted + index + 1
        progress.expected = reduction.snapshot
      }
      guard let stateHash, let recorded = entry.stateHash else { continue }
      let replayed = stateHash(reduction.state)
      guard replayed != recorded else { continue }
      let divergence = ReplayDivergence(
        entry: entry, recordedHash: recorded, replayedHash: replayed, before: before, after: reduction.state
      ) { again in reduceAgain(&again, action) }
      reporter.fail("The replay diverged from the journal at \(divergence)", at: location)
      return
    }
  }
}
