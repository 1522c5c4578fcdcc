/// An enum of features, one case a feature: TCA's `@Reducer enum Destination`. Its `State` and
/// `Action` have a case for each feature, and its static ``body`` scopes each feature to its case.
/// `@Dripper` from `DripperMacros` writes all three from the cases:
///
/// ```swift
/// @Dripper
/// enum Destination {
///   case login(Login)
///   case game(Game)
/// }
/// extension Destination.State: Equatable {}
///
/// // The parent presents it without a trailing closure, as TCA's does:
/// .ifLet(\.$destination, action: \.destination)
/// ```
///
/// Written by hand, an enum conforms by declaring the three:
///
/// ```swift
/// enum Destination: CaseDripper {
///   enum State: CaseDripperState { typealias Features = Destination; case login(Login.State) }
///   enum Action: Sendable { case login(Login.Action) }
///   static var body: some Dripper<State, Action> {
///     Scope(state: State.login, action: Action.login) { Login() }
///   }
/// }
/// ```
public protocol CaseDripper {
  /// The state: a case for each feature, holding the feature's state.
  associatedtype State: CaseDripperState where State.Features == Self
  /// The action: a case for each feature, holding the feature's action.
  associatedtype Action: Sendable
  /// The dripper that runs each feature on its case.
  associatedtype Body: Dripper<State, Action>

  /// Each feature scoped to its case: `Scope(state: \.login, action: \.login) { Login() }` a
  /// feature.
  @DripperBuilder<State, Action>
  static var body: Body { get }
}

/// The state of a ``CaseDripper``: it names the enum of features it belongs to, so that a parent
/// presents the features from the state's type alone (`.ifLet(\.$destination, action:
/// \.destination)`).
public protocol CaseDripperState: Sendable {
  /// The enum of features whose state this is.
  associatedtype Features: CaseDripper where Features.State == Self
}

extension Dripper {
  /// Presents an enum of features (a ``CaseDripper``, TCA's `@Reducer enum`) while the state at
  /// `toPresentationState` holds one, running the feature of its case: TCA's
  /// `.ifLet(\.$destination, action: \.destination)`, without a trailing closure.
  @inlinable
  public func ifLet<DestinationState: CaseDripperState, DestinationAction>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<DestinationState>> & Sendable,
    action toPresentationAction: CasePath<Action, PresentationAction<DestinationAction>>
  ) -> some Dripper<State, Action> where DestinationState.Features.Action == DestinationAction {
    ifLet(toPresentationState, action: toPresentationAction) { DestinationState.Features.body }
  }

  /// Runs the screens of a stack whose element is an enum of features (a ``CaseDripper``, TCA's
  /// `@Reducer enum Path`), each by the feature of its case: TCA's `.forEach(\.path, action:
  /// \.path)`, without a trailing closure.
  @inlinable
  public func forEach<ElementState: CaseDripperState, ElementAction>(
    _ toStack: any WritableKeyPath<State, StackState<ElementState>> & Sendable,
    action toStackAction: CasePath<Action, StackAction<ElementState, ElementAction>>
  ) -> some Dripper<State, Action> where ElementState.Features.Action == ElementAction {
    forEach(toStack, action: toStackAction) { ElementState.Features.body }
  }
}

extension Dripper where Action: CasePathable {
  /// Presents an enum of features, the action's case named by a key path (see ``CaseKeyPath``):
  /// `.ifLet(\.$destination, action: \.destination)`.
  @inlinable
  public func ifLet<DestinationState: CaseDripperState, DestinationAction>(
    _ toPresentationState: any WritableKeyPath<State, PresentationState<DestinationState>> & Sendable,
    action toPresentationAction: CaseKeyPath<Action, PresentationAction<DestinationAction>>
  ) -> some Dripper<State, Action> where DestinationState.Features.Action == DestinationAction {
    ifLet(toPresentationState, action: CasePath(toPresentationAction))
  }

  /// Runs the screens of a stack of an enum of features, the action's case named by a key path:
  /// `.forEach(\.path, action: \.path)`.
  @inlinable
  public func forEach<ElementState: CaseDripperState, ElementAction>(
    _ toStack: any WritableKeyPath<State, StackState<ElementState>> & Sendable,
    action toStackAction: CaseKeyPath<Action, StackAction<ElementState, ElementAction>>
  ) -> some Dripper<State, Action> where ElementState.Features.Action == ElementAction {
    forEach(toStack, action: CasePath(toStackAction))
  }
}
