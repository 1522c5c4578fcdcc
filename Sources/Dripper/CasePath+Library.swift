// The cases of the generic enums a feature's actions are made of — the standard library's
// `Result` and Dripper's own `PresentationAction`, `IdentifiedAction` and `StackAction` — named
// once here, so that a path through them is written as the rest:
//
//   CasePath.recordingMemo.appending(.presented).appending(.delegate).appending(.success)

/// The shape of `Result`, for its case paths (``CasePath/success``, ``CasePath/failure``).
public protocol ResultCases: SendableMetatype {
  /// The success's value.
  associatedtype Success
  /// The failure's error.
  associatedtype Failure: Error
  /// The value, or the error, as a `Result`.
  var result: Result<Success, Failure> { get }
  /// A success.
  static func success(_ value: Success) -> Self
  /// A failure.
  static func failure(_ error: Failure) -> Self
}

extension Result: ResultCases {
  /// The result itself.
  public var result: Result<Success, Failure> { self }
}

extension CasePath where Root: ResultCases, Value == Root.Success {
  /// A `Result`'s `success` case: `.appending(.success)` after a case path to a response.
  ///
  /// ```swift
  /// await station.receive(CasePath.searchResponse.appending(.success), ["Rome"])
  /// ```
  public static var success: Self {
    Self({ Root.success($0) }, extract: { if case .success(let value) = $0.result { value } else { nil } })
  }
}

extension CasePath where Root: ResultCases, Value == Root.Failure {
  /// A `Result`'s `failure` case.
  public static var failure: Self {
    Self({ Root.failure($0) }, extract: { if case .failure(let error) = $0.result { error } else { nil } })
  }
}

extension CasePath where Root: PresentationActionCases, Value == Root.PresentedAction {
  /// ``PresentationAction/presented(_:)``: the presented child's action.
  ///
  /// ```swift
  /// await station.receive(CasePath.destination.appending(.presented).appending(.saved), draft)
  /// ```
  public static var presented: Self {
    Self({ Root.presentedCase($0) }, extract: { $0.presentedAction })
  }
}

extension CasePath where Root: PresentationActionCases, Value == Void {
  /// ``PresentationAction/dismiss``, a case without a payload.
  public static var dismiss: Self {
    Self({ _ in Root.dismissCase }, extract: { $0.isDismiss ? () : nil })
  }
}

extension CasePath {
  /// ``IdentifiedAction/element(id:action:)`` of the element with `id`.
  ///
  /// ```swift
  /// station.pour(CasePath.rows.appending(.element(id: 1)).appending(.toggle).embed(()))
  /// ```
  public static func element<ID: Hashable & Sendable>(id: ID) -> Self
  where Root == IdentifiedAction<ID, Value> {
    Self(
      { .element(id: id, action: $0) },
      extract: { root in
        guard case .element(let elementID, let action) = root, elementID == id else { return nil }
        return action
      })
  }

  /// ``StackAction/element(id:action:)`` of the screen with `id`.
  public static func element<ElementState>(id: StackElementID) -> Self
  where Root == StackAction<ElementState, Value> {
    Self(
      { .element(id: id, action: $0) },
      extract: { root in
        guard case .element(let elementID, let action) = root, elementID == id else { return nil }
        return action
      })
  }

  /// The case path to the action of the screen with `id`, through a case path to a stack's
  /// actions: TCA's `\.path[id: 0].detail.save`.
  ///
  /// ```swift
  /// await station.pour(CasePath.path[id: 0].detail.save, ())
  /// ```
  public subscript<ElementState, ElementAction>(id id: StackElementID) -> CasePath<Root, ElementAction>
  where Value == StackAction<ElementState, ElementAction> {
    appending(.element(id: id))
  }

  /// ``StackAction/push(id:state:)``: the id and the state pushed.
  public static func push<ElementState, ElementAction>() -> Self
  where Root == StackAction<ElementState, ElementAction>, Value == (id: StackElementID, state: ElementState) {
    Self(
      { .push(id: $0.id, state: $0.state) },
      extract: { root in
        guard case .push(let id, let state) = root else { return nil }
        return (id, state)
      })
  }

  /// ``StackAction/popFrom(id:)``: the id popped from.
  public static func popFrom<ElementState, ElementAction>() -> Self
  where Root == StackAction<ElementState, ElementAction>, Value == StackElementID {
    Self(
      { .popFrom(id: $0) },
      extract: { root in
        guard case .popFrom(let id) = root else { return nil }
        return id
      })
  }
}

/// The shape of ``PresentationAction``, for its case paths (``CasePath/presented``,
/// ``CasePath/dismiss``).
public protocol PresentationActionCases: SendableMetatype {
  /// The presented child's action.
  associatedtype PresentedAction
  /// The presented case.
  static func presentedCase(_ action: PresentedAction) -> Self
  /// The presented child's action, if this is the presented case.
  var presentedAction: PresentedAction? { get }
  /// The dismiss case.
  static var dismissCase: Self { get }
  /// Whether this is the dismiss case.
  var isDismiss: Bool { get }
}

extension PresentationAction: PresentationActionCases {
  /// ``PresentationAction/presented(_:)``.
  public static func presentedCase(_ action: Action) -> Self { .presented(action) }
  /// The child's action of ``PresentationAction/presented(_:)``.
  public var presentedAction: Action? { if case .presented(let action) = self { action } else { nil } }
  /// ``PresentationAction/dismiss``.
  public static var dismissCase: Self { .dismiss }
  /// Whether this is ``PresentationAction/dismiss``.
  public var isDismiss: Bool { if case .dismiss = self { true } else { false } }
}
