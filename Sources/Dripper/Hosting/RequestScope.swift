/// What a request's effects run inside: the task-local values of the caller, carried over.
///
/// A key's effects are tasks of its Station, not of the caller that poured the request, so they do
/// not inherit the caller's task-local values: a tracing context, a logger's metadata, a deadline.
/// A request given a scope runs each effect its reduction starts inside `wrap`, which binds them
/// again:
///
/// ```swift
/// let context = ServiceContext.current ?? .topLevel
/// let scope = RequestScope { body in try await ServiceContext.withValue(context) { try await body() } }
/// let answer = try await host.ask(.withdraw(30), to: "alice", id: key, effectsIn: scope)
/// ```
///
/// Only the effects of the request's own reduction are wrapped; a retry of an id already applied
/// starts none. A request replayed from storage after a restart runs without its scope.
public struct RequestScope: Sendable {
  let wrap: @Sendable (_ body: @Sendable () async throws -> Void) async throws -> Void

  /// A scope that runs each effect's work inside `wrap`, which must call `body` once.
  public init(_ wrap: @escaping @Sendable (_ body: @Sendable () async throws -> Void) async throws -> Void) {
    self.wrap = wrap
  }
}

extension Effect {
  /// This effect with the work of each `run` inside `scope`.
  func scoped(in scope: RequestScope) -> Self {
    if isNone { return self }
    return rebuilt(sending: { $0 }, running: { $0.scoped(in: scope) })
  }
}

extension EffectRun {
  /// This work inside `scope`.
  func scoped(in scope: RequestScope) -> EffectRun {
    let operation = self.operation
    return EffectRun(
      priority: priority,
      operation: { pour in try await scope.wrap { try await operation(pour) } },
      handler: handler, dependencies: dependencies, origin: origin)
  }
}
