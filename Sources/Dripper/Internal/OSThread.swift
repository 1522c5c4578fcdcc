#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A detached OS thread (a pthread, not a task): for work that blocks in the system, such as a
/// journal's writes and syncs or a file watch, and for producers in the benchmarks. The thread
/// holds `body`, and what it captures, until `body` returns.
package enum OSThread {
  /// Starts a thread running `body`; `false` when the system refuses one.
  @discardableResult
  package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    guard started == 0 else {
      Unmanaged<Body>.fromOpaque(context).release()
      return false
    }
    pthread_detach(thread)
    return true
  }

  private final class Body: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }
}
