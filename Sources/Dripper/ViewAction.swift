/// An action with a case for the actions a view sends: TCA's `ViewAction`, the same shape. A view
/// then pours its own actions without wrapping them.
///
/// ```swift
/// struct Login: Dripper {
///   enum Action: ViewAction {
///     case view(View)
///     case response(Result<User, LoginError>)
///
///     enum View { case loginButtonTapped, forgotPasswordTapped }
///   }
///   …
/// }
///
/// model.pour(.loginButtonTapped)          // in the view; TCA: send(.loginButtonTapped)
/// model.pour(.view(.loginButtonTapped))   // the same action, as a test writes it
/// ```
///
/// An enum's `case view(View)` is the requirement: nothing else to write. Where TCA's
/// `@ViewAction(for:)` macro gives a view a `send(_:)` of view actions only, Dripper gives
/// ``Station``, ``ObservableStation`` and a test harness's Station an overload of `pour` that takes
/// them: no macro, and no conformance on the view. If a case of the view's actions has the name of
/// one of the action's own, the compiler asks which is meant; write it in full, `.view(.name)`.
public protocol ViewAction<ViewAction>: Sendable {
  /// The actions a view sends.
  associatedtype ViewAction: Sendable

  /// The action of a view's `action`: in an enum, `case view(ViewAction)`.
  static func view(_ action: ViewAction) -> Self
}

extension Station where Action: ViewAction {
  /// Pours a view's action: `pour(.view(action))`.
  ///
  /// ```swift
  /// station.pour(.loginButtonTapped)
  /// ```
  @inlinable
  @discardableResult
  public func pour(_ action: Action.ViewAction) -> PourTask {
    pour(.view(action))
  }
}

extension ObservableStation where Action: ViewAction {
  /// Pours a view's action: `pour(.view(action))`, what TCA's `@ViewAction` view writes
  /// `send(action)`.
  ///
  /// ```swift
  /// Button("Log in") { model.pour(.loginButtonTapped) }
  /// ```
  @discardableResult
  public func pour(_ action: Action.ViewAction) -> PourTask {
    station.pour(.view(action))
  }
}
