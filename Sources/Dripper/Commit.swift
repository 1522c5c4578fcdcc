/// A named change to a state, poured like an action: the direct mutation of Verge's
/// `commit { $0.count += 1 }` and bloc's `Cubit.emit(state)`, for features with no action enum.
///
/// A Station of commits (a ``CommitStation``) reduces each one on its actor, in order
/// with every other pour, like any action: observers, `logChanges` and `TestStation` see it by its
/// name, and a commit can return an effect, whose commits are reduced in turn.
///
/// ```swift
/// struct Counter: Equatable, Sendable { var count = 0 }
///
/// let station = CommitStation(initialState: Counter())
/// station.commit("increase") { $0.count += 1 }
/// station.emit(Counter(count: 10))                       // replaces the whole state
/// await station.commit("load", effect: { _ in
///   .run { pour in await pour(Commit("loaded") { $0.count = 42 }) }
/// }).finish()
/// ```
///
/// Choose commits for a small feature whose callers own its logic (a settings form, a counter);
/// choose an action enum and a ``Dripper`` when the logic belongs to the feature, when it must be
/// composed into a parent, or when tests should read as a list of events.
public struct Commit<State: Sendable>: Sendable, CustomStringConvertible {
  /// The name the commit is logged and tested by.
  public let name: String
  /// The change, and the effect it starts.
  @usableFromInline let change: Change

  /// A mutation, kept as it was given (wrapping it in a closure that returns `.none` would
  /// allocate for every commit), or a change that returns an effect.
  @usableFromInline
  enum Change: Sendable {
    case mutation(@Sendable (inout State) -> Void)
    case effect(@Sendable (inout State) -> Effect<Commit<State>>)
  }

  /// A commit that changes the state with `mutation`.
  @inlinable
  public init(_ name: String, _ mutation: @escaping @Sendable (inout State) -> Void) {
    self.name = name
    self.change = .mutation(mutation)
  }

  /// A commit that changes the state and returns an effect, as a reduction does.
  @inlinable
  public init(_ name: String, effect change: @escaping @Sendable (inout State) -> Effect<Commit<State>>) {
    self.name = name
    self.change = .effect(change)
  }

  /// A commit that replaces the whole state: bloc's `emit`.
  @inlinable
  public static func emit(_ state: State) -> Self {
    Self("emit") { $0 = state }
  }

  /// `commit("name")`, as logs and test failures show it.
  public var description: String { "commit(\"\(name)\")" }
}

extension Commit: DumpsAsDescription {}

/// The dripper of a ``CommitStation``: it applies each commit.
public struct Committing<State: Sendable>: Dripper {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  /// A dripper that applies commits.
  @inlinable
  public init() {}

  /// Applies the commit, and returns its effect.
  @inlinable
  public func reduce(into state: inout State, action: Commit<State>) -> Effect<Commit<State>> {
    switch action.change {
    case .mutation(let mutation):
      mutation(&state)
      return .none
    case .effect(let change):
      return change(&state)
    }
  }
}

/// A Station whose callers change its state directly, with ``Commit``s.
public typealias CommitStation<State: Sendable> = Station<State, Commit<State>>

extension Station where Action == Commit<State> {
  /// Starts a Station whose callers change its state with commits: no action enum, no dripper.
  ///
  /// ```swift
  /// let settings = CommitStation(initialState: Settings())
  /// settings.commit("dark mode") { $0.isDark = true }
  /// ```
  @inlinable
  public convenience init(
    initialState: State,
    observers: [DripperObserver<State, Action>] = [],
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) {
    self.init(
      initialState: initialState, observers: observers, dripper: { Committing<State>() },
      withDependencies: prepareDependencies)
  }

  /// Changes the state with `mutation`, in order with every other pour; returns the pour's task.
  ///
  /// ```swift
  /// station.commit("increase") { $0.count += 1 }
  /// ```
  @discardableResult
  @inlinable
  public func commit(_ name: String = "commit", _ mutation: @escaping @Sendable (inout State) -> Void)
    -> PourTask
  {
    pour(Commit(name, mutation))
  }

  /// Changes the state and starts the effect `change` returns, whose commits are reduced in turn.
  @inlinable
  @discardableResult
  public func commit(
    _ name: String = "commit", effect change: @escaping @Sendable (inout State) -> Effect<Action>
  ) -> PourTask {
    pour(Commit(name, effect: change))
  }

  /// Replaces the whole state: bloc's `emit`.
  @discardableResult
  @inlinable
  public func emit(_ state: State) -> PourTask {
    pour(.emit(state))
  }
}
