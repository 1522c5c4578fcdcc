import Dripper

/// TCA's `@Reducer`. On a feature struct, it adds `@CasePathable` to the struct's `State` and
/// `Action` enums, and the conformance to ``Dripper/Dripper``. On an enum of features (TCA's
/// `@Reducer enum Destination`), it writes the enum's `State` and `Action`, a case a feature, and
/// its static `body`, which scopes each feature to its case: a ``Dripper/CaseDripper``, which a
/// parent presents or stacks without a trailing closure.
///
/// ```swift
/// @Dripper
/// enum Destination {
///   case login(Login)
///   case game(Game)
///   case alert(AlertState<Alert>)   // a state without logic: its action is Alert
/// }
/// extension Destination.State: Equatable {}
///
/// // In the parent:
/// .ifLet(\.$destination, action: \.destination)
/// ```
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Dripper, CaseDripper)
public macro Dripper() = #externalMacro(module: "DripperMacrosPlugin", type: "DripperMacro")

/// TCA's `@Reducer`: ``Dripper()``. Unavailable, so that the compiler's fix-it renames it.
@available(*, unavailable, renamed: "Dripper")
@attached(member, names: named(State), named(Action), named(body))
@attached(memberAttribute)
@attached(extension, conformances: Dripper, CaseDripper)
public macro Reducer() = #externalMacro(module: "DripperMacrosPlugin", type: "DripperMacro")
