#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the thread is running a Station's reduction, and how deep in presented features:
/// 0 outside any reduction, 1 in a reduction, one more for each presentation or stack around the
/// child being reduced. ``DependencyValues/isPresented`` reads it.
///
/// A thread-local, because a reduction is synchronous: it starts and ends on one thread, with no
/// suspension between, so what a presentation raises around its child's reduction is seen by
/// that reduction alone. It replaced an object per Station found through a task-local: that
/// lookup (walking the task's bindings, retaining what it found) made a stack element's action
/// cost 1.5-1.85x an element action of `forEach`, against 0.92x without it
/// (`swift run -c release dripper-bench --filter composition`).
@usableFromInline
enum ReductionDepth {
  /// The depth on this thread.
  @usableFromInline
  static func current() -> Int {
    Int(bitPattern: pthread_getspecific(key))
  }

  /// Sets the depth on this thread.
  @usableFromInline
  static func set(_ depth: Int) {
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth))
  }

  /// Runs `body`, a Station's reductions, at depth 1, then restores the depth it found.
  @inlinable
  static func reducing(_ body: () -> Void) {
    let outer = current()
    set(1)
    body()
    set(outer)
  }
}

/// The thread-local's key, made on first use.
private let key: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key, nil)
  precondition(status == 0, "Dripper could not create its thread-local key (pthread_key_create: \(status))")
  return key
}()
