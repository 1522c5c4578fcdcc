/// A hash of a state, the same in every process: what a journal entry keeps of the state its action
/// left, so that a replay can tell where it stopped giving the same states.
///
/// ```swift
/// Counter().recording(to: journal, hashing: .dump) { "\($0)" }
/// Counter().recording(to: journal, hashing: StateHash { UInt64(bitPattern: Int64($0.count)) }) { "\($0)" }
/// ```
///
/// Swift's `Hasher` is seeded anew in each process, so `hashValue` cannot serve.
public struct StateHash<State>: Sendable {
  @usableFromInline let hash: @Sendable (State) -> UInt64

  /// A hash computed by `hash`, which must give equal states equal hashes in every process.
  public init(_ hash: @escaping @Sendable (State) -> UInt64) {
    self.hash = hash
  }

  /// The hash of the state's whole text, as a failed test assertion shows it (64-bit FNV-1a):
  /// any change to any stored property changes it. It renders the whole state at each action, so
  /// it costs about what ``Dripper/logChanges(to:label:)`` does; give a hash of your own for a
  /// large state.
  public static var dump: StateHash {
    StateHash { state in
      var hash = FNV1a()
      for line in Dump.lines(state) {
        hash.add(line.utf8)
        hash.add(CollectionOfOne(JournalLine.newline))
      }
      return hash.value
    }
  }

  /// The hash of `state`.
  @inlinable
  public func callAsFunction(_ state: State) -> UInt64 { hash(state) }
}

extension Dripper {
  /// Records every action this dripper reduces to `journal`, in the order reduced, each encoded
  /// by `encode`.
  ///
  /// ```swift
  /// let journal = Journal.inMemory()
  /// let station = Station(initialState: Counter.State()) {
  ///   Counter().recording(to: journal, hashing: .dump) { action in "\(action)" }
  /// }
  /// ```
  ///
  /// Applied to a Station's whole feature, it records what the Station reduces: the actions
  /// poured by callers, those effects pour (a response, a timer's tick) and those `.send`
  /// returns, so that folding the journal's actions again, with effects not run, gives the same
  /// states (see ``replay(_:from:hashing:decode:withDependencies:)``). The state is a fold of the
  /// actions only if the reducer reads nothing else: a `@Dependency(\.uuid)` or `date` read in
  /// the reducer gives other values in a replay. Make such values in an effect, or in the caller,
  /// and put them in the action, as TCA's own tests recommend.
  ///
  /// A write that fails (a full disk) is reported as a ``Diagnostic`` once, and the entries are
  /// kept to be written again. An action whose entry would be longer than a journal line holds
  /// (64 MiB, escaped) is refused before it is reduced: a ``Diagnostic`` says so, the state does
  /// not change and no sequence number is spent, so that the journal never holds what its reader
  /// refuses and the state stays the fold of the journal's actions. A journal's entries are lines
  /// of text; `encode` makes each.
  ///
  /// - Parameters:
  ///   - journal: Where the entries go.
  ///   - stateHash: A hash of the state each action leaves, kept in its entry; `nil` keeps none.
  ///   - encode: The action as text.
  @inlinable
  public func recording(
    to journal: Journal, hashing stateHash: StateHash<State>? = nil,
    encode: @escaping @Sendable (Action) -> String
  ) -> some Dripper<State, Action> {
    _RecordingModifier(base: self, journal: journal, stateHash: stateHash, encode: encode, recorded: nil)
  }
}

extension Dripper {
  /// Records every commit this dripper of commits reduces to `journal`, each by its name: a
  /// ``CommitStation``'s journal.
  ///
  /// ```swift
  /// let settings = Station(initialState: Settings()) {
  ///   Committing<Settings>().recording(to: journal, hashing: .dump)
  /// }
  /// settings.commit("dark mode") { $0.isDark = true }   // recorded as "dark mode"
  /// ```
  ///
  /// A commit's change is a closure, which no journal can hold: a replay's `decode` gives the
  /// commit for each name (`"dark mode"` → `Commit("dark mode") { $0.isDark = true }`).
  @inlinable
  public func recording<Changed: Sendable>(
    to journal: Journal, hashing stateHash: StateHash<State>? = nil
  ) -> some Dripper<State, Action> where Action == Commit<Changed>, State == Changed {
    recording(to: journal, hashing: stateHash) { $0.name }
  }
}

/// A dripper that records what another reduces: see ``Dripper/recording(to:hashing:encode:)``.
///
/// Inlinable, so that the reduction around the base runs as code specialized for the feature's
/// types: unspecialized, each recorded action looked up generic metadata several times.
@usableFromInline
struct _RecordingModifier<Base: Dripper>: Dripper {
  @usableFromInline typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let journal: Journal
  @usableFromInline let stateHash: StateHash<Base.State>?
  @usableFromInline let encode: @Sendable (Base.Action) -> String
  /// Told of each entry recorded, with the state it left: a durable journal's snapshots. Returns
  /// what the Station is to be told (a snapshot refused as it was written).
  @usableFromInline let recorded: (@Sendable (UInt64, Base.State) -> [Diagnostic])?

  @inlinable
  init(
    base: Base, journal: Journal, stateHash: StateHash<Base.State>?,
    encode: @escaping @Sendable (Base.Action) -> String,
    recorded: (@Sendable (UInt64, Base.State) -> [Diagnostic])?
  ) {
    self.base = base
    self.journal = journal
    self.stateHash = stateHash
    self.encode = encode
    self.recorded = recorded
  }

  /// Encodes the action, then reduces it and records it; an action whose entry the journal could
  /// not read back is not reduced (see `Journal.refusal(ofEntry:)`).
  @inlinable
  func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    let text = encode(action)
    if let refusal = journal.refusal(ofEntry: text) { return .report(refusal) }
    let effect = base.reduce(into: &state, action: action)
    return record(text, state: state, effect: effect)
  }

  @inlinable
  func record(_ text: String, state: Base.State, effect: Effect<Base.Action>) -> Effect<Base.Action> {
    let (sequence, reports) = journal.append(action: text, stateHash: stateHash?(state))
    let snapshotReports = recorded?(sequence, state) ?? []
    return Self.reporting(reports + snapshotReports, after: effect)
  }

  /// `effect`, and the reports of the journal, if any.
  @inlinable
  static func reporting(_ reports: [Diagnostic], after effect: Effect<Base.Action>) -> Effect<Base.Action> {
    guard !reports.isEmpty else { return effect }
    return reports.reduce(effect) { $0.merge(with: .report($1)) }
  }

  @inlinable
  func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  @inlinable
  func _build() -> _Reduction<Base.State, Base.Action> {
    let built = base._build()
    let reduce = built.reduce
    guard stateHash != nil || recorded != nil else {
      // Only the action: the closure holds no more than it calls.
      let journal = journal
      let encode = encode
      return _Reduction(
        reduce: { state, action in
          let text = encode(action)
          if let refusal = journal.refusal(ofEntry: text) { return .report(refusal) }
          let effect = reduce(&state, action)
          return Self.reporting(journal.append(action: text, stateHash: nil).reports, after: effect)
        },
        audit: built.audit)
    }
    return _Reduction(
      reduce: { state, action in
        let text = encode(action)
        if let refusal = journal.refusal(ofEntry: text) { return .report(refusal) }
        let effect = reduce(&state, action)
        return record(text, state: state, effect: effect)
      },
      audit: built.audit)
  }
}

extension Journal {
  /// What a Station is told when its journal could not record.
  @usableFromInline
  static func diagnostic(for error: JournalError) -> Diagnostic {
    Diagnostic(.other, "the journal could not record: \(error)")
  }
}
