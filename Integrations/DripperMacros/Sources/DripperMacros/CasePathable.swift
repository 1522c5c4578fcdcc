@_exported import Dripper

/// Writes an enum's table of case paths, ``Dripper/CasePathable/AllCasePaths``, and its
/// conformance to ``Dripper/CasePathable``: TCA's `@CasePathable`. Key paths into the table then
/// name cases as TCA's do, through as many cases as a path crosses.
///
/// ```swift
/// @CasePathable
/// enum Action: Sendable {
///   case login(Login.Action)
///   case newGame(NewGame.Action)
/// }
///
/// Scope(state: \.login, action: \.login) { Login() }
/// await store.receive(\.login.loginResponse.success) { … }
/// ```
///
/// A case without a payload has a path to `Void`; a case with several values, a path to their
/// tuple, labelled as the case is. An enum that is a `BindableAction` gets its `binding` property
/// too, unless it declares one. The table's members are as visible as the enum (`public` and
/// `package` are copied), and a case's `#if` and `@available` are kept.
@attached(extension, conformances: CasePathable)
@attached(member, names: named(AllCasePaths), named(allCasePaths), named(binding))
public macro CasePathable() = #externalMacro(module: "DripperMacrosPlugin", type: "CasePathableMacro")
