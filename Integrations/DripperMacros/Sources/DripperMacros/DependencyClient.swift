import Dripper

/// TCA's `@DependencyClient`: a client's endpoints, declared as closures, each unimplemented until
/// a test overrides it, and called with labels where the closure names its parameters.
///
/// ```swift
/// @DependencyClient
/// struct AuthenticationClient: Sendable {
///   var login: @Sendable (_ email: String, _ password: String) async throws -> Response
///   var status: @Sendable () async -> Status = { .unknown }
/// }
///
/// try await client.login(email: "blob@pointfree.co", password: "bl0b")
/// ```
///
/// It writes an initializer with a parameter a property, each endpoint defaulting to
/// `unimplemented("AuthenticationClient.login")`: `AuthenticationClient()` is the test value, and
/// a call a test did not override fails it, naming client and endpoint. An endpoint with a default
/// of its own answers with it, and its call is reported all the same
/// (`unimplemented(_:default:)`), as TCA's. An endpoint that returns a value without throwing has
/// nothing to answer with: give it a default, or the macro says so. And for each endpoint whose
/// closure names its parameters, a method with those labels.
@attached(member, names: named(init), arbitrary)
public macro DependencyClient() = #externalMacro(module: "DripperMacrosPlugin", type: "DependencyClientMacro")
