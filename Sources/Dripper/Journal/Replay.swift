/// The first entry of a replay whose state does not hash as the journal recorded, and why.
public struct ReplayDivergence: Sendable, Equatable, CustomStringConvertible {
  /// The entry's sequence number.
  public let sequence: UInt64
  /// The entry's action, as recorded.
  public let action: String
  /// The hash the journal recorded.
  public let recordedHash: UInt64
  /// The hash of the state the replay reached.
  public let replayedHash: UInt64
  /// What the replay found, then a diff (`-` before, `+` after): the action reduced twice from the
  /// same state gave two states (the reducer reads something that is not in the action or the
  /// state: a clock, a random number, a global), or gave the same state both times (the reducer
  /// changed since the recording, or the states before differed in what no hash saw).
  public let explanation: [String]

  /// The divergence in a few lines.
  public var description: String {
    let first =
      "entry \(sequence) (\(action)): the state hashes to \(hex(replayedHash)); the journal recorded \(hex(recordedHash))"
    return ([first] + explanation).joined(separator: "\n")
  }

  private func hex(_ value: UInt64) -> String {
    var bytes: [UInt8] = []
    JournalLine.appendHex(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension ReplayDivergence {
  /// The divergence of `entry`, whose action took `before` to `after`: `reduceAgain` reduces the
  /// action once more from `before`, to tell a reducer that reads something outside the action
  /// and the state from one that changed since the recording. Shared by ``Dripper/replay(_:from:hashing:decode:withDependencies:)``
  /// and `TestStation.replay`.
  package init<State>(
    entry: JournalEntry, recordedHash: UInt64, replayedHash: UInt64, before: State, after: State,
    reduceAgain: (inout State) -> Void
  ) {
    var again = before
    reduceAgain(&again)
    let explanation: [String]
    if let twice = Diff.lines(from: after, to: again) {
      explanation =
        [
          "the action gives another state each time it is reduced from the same state: the reducer reads something that is not in the action or the state (a clock, a random number, a global); two reductions (- first, + second):"
        ] + twice
    } else {
      explanation =
        [
          "the action gives the same state each time: the reducer changed since the recording, or the state before it differed in what was not hashed; what the action did (- before, + after):"
        ] + (Diff.lines(from: before, to: after) ?? ["(no change)"])
    }
    self.init(
      sequence: entry.sequence, action: entry.action, recordedHash: recordedHash, replayedHash: replayedHash,
      explanation: explanation)
  }
}

/// What a replay did: how many entries it folded, the first divergence, and why it stopped early.
public struct ReplayReport: Sendable, Equatable {
  /// The entries folded into the state.
  public var replayed = 0
  /// The sequence number of the last entry folded.
  public var lastSequence: UInt64?
  /// The first entry whose state did not hash as recorded; the replay goes on past it.
  public var divergence: ReplayDivergence?
  /// Why the replay stopped before the end: an action that could not be decoded. The state is
  /// the one before that entry.
  public var failure: JournalError?
}

extension Dripper {
  /// Folds a journal's actions into `state` through this dripper, with effects not run: the state
  /// the recording Station reached, rebuilt.
  ///
  /// ```swift
  /// let contents = try Journal.read(at: "counter.journal")
  /// let (state, report) = Counter().replay(contents.entries, from: Counter.State(), hashing: .dump) {
  ///   try Counter.Action(journaled: $0)
  /// }
  /// if let divergence = report.divergence { print(divergence) }
  /// ```
  ///
  /// With `stateHash`, each entry that recorded a hash is checked, and the first that differs is
  /// reported with a diff (see ``ReplayDivergence``): a reducer that read a clock or a random
  /// number directly, instead of through a dependency passed in an action, is found this way. The
  /// actions a recording Station's effects poured are in the journal, so no effect needs to run;
  /// the actions `.send` returned are too, so the effects returned are dropped whole.
  ///
  /// - Parameters:
  ///   - entries: The entries, in order.
  ///   - state: The state the recording started from.
  ///   - stateHash: The hash the recording kept; `nil` checks nothing.
  ///   - decode: An entry's action from its text; an error stops the replay before that entry.
  ///   - prepareDependencies: The dependencies the reductions read, from those in force here.
  public func replay(
    _ entries: some Sequence<JournalEntry>, from state: State, hashing stateHash: StateHash<State>? = nil,
    decode: (String) throws -> Action,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) -> (state: State, report: ReplayReport) {
    var folder = ReplayFolder(dripper: self, state: state, stateHash: stateHash, prepare: prepareDependencies)
    for entry in entries {
      do throws(JournalError) {
        try folder.fold(entry, decode: decode)
      } catch {
        folder.report.failure = error
        break
      }
    }
    return (folder.state, folder.report)
  }
}

/// Folds entries one at a time, with the reductions' dependencies in force: a replay, and the
/// recovery of a durable journal as it reads the file.
struct ReplayFolder<State: Sendable, Action: Sendable> {
  private(set) var state: State
  var report = ReplayReport()
  let reduce: @Sendable (inout State, Action) -> Effect<Action>
  let stateHash: StateHash<State>?
  let dependencies: DependencyBox

  init(
    dripper: some Dripper<State, Action>, state: State, stateHash: StateHash<State>?,
    prepare: (inout DependencyValues) -> Void
  ) {
    var values = DependencyValues.current.captured
    prepare(&values)
    values.followsReductions = true
    values.stackElementIDs = StackElementIDs()
    self.dependencies = DependencyBox(values)
    self.reduce = dripper._build().reduce
    self.state = state
    self.stateHash = stateHash
  }

  /// Decodes and reduces `entry`, checking its hash.
  ///
  /// An entry recorded under an older schema is migrated, so its hash, of a state of other types,
  /// is not checked (`checkingHash` is false).
  mutating func fold(
    _ entry: JournalEntry, decode: (String) throws -> Action, checkingHash: Bool = true
  ) throws(JournalError) {
    let action: Action
    do {
      action = try decode(entry.action)
    } catch {
      throw JournalError("entry \(entry.sequence) (\(entry.action)) could not be decoded: \(error)")
    }
    guard checkingHash, let stateHash, let recorded = entry.stateHash, report.divergence == nil else {
      reduceOne(action, state: &state)
      count(entry)
      return
    }
    // The state before is kept only while hashes are checked, to explain a divergence.
    let before = state
    reduceOne(action, state: &state)
    count(entry)
    let replayed = stateHash(state)
    guard replayed != recorded else { return }
    report.divergence = ReplayDivergence(
      entry: entry, recordedHash: recorded, replayedHash: replayed, before: before, after: state
    ) { again in reduceOne(action, state: &again) }
  }

  private mutating func count(_ entry: JournalEntry) {
    report.replayed += 1
    report.lastSequence = entry.sequence
  }

  private func reduceOne(_ action: Action, state: inout State) {
    ReductionContext.reducing(with: dependencies) { _ = reduce(&state, action) }
  }
}
