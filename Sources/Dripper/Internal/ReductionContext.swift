public import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the reduction running on this thread has in force: the dependencies of its Station, and
/// how deep in presented features it is.
///
/// Thread-local, because a reduction is synchronous: it starts and ends on one thread, with no
/// suspension between, and nothing else runs on that thread meanwhile. Each thread that reduces
/// gets one context, allocated the first time and freed when the thread ends;
/// ``reducing(with:_:)`` fills it for the batch and restores what it held, plain stores where
/// setting the thread-local to a context on the stack took two calls into the C library per batch.
///
/// - **Dependencies.** ``DependencyValues/current`` returns the reduction's values before looking
///   at the task-local. A Station used to bind the task-local around every batch whose calling
///   task had other values (every `await station.pour(x).finish()` from a caller's task): a push
///   and a pop that took the task's status lock and retained the values twice, a third of an
///   awaited pour. An unstructured `Task` started inside a reduction therefore does not inherit
///   them (it inherits the task-locals of the task that poured); effects do, because an effect
///   captures ``DependencyValues/current`` when it is made. Binding values explicitly
///   (`withDependencies`, ``Dripper/dependency(_:_:)``) hides the reduction's values and binds the
///   task-local, so that tasks started inside inherit those.
/// - **Depth.** 1 in a reduction, one more for each presentation or stack around the child being
///   reduced; ``DependencyValues/isPresented`` reads it. It replaced an object per Station found
///   through a task-local: that lookup made a stack element's action cost 1.5-1.85x an element
///   action of `forEach`, against 0.92x without it
///   (`swift run -c release dripper-bench --filter composition`).
@usableFromInline
struct ReductionContext {
  /// The reduction's dependencies, or `nil` where they are hidden, where the reduction has none
  /// of its own (a dripper reduced directly), or outside any reduction. Unretained: whoever calls
  /// ``reducing(with:_:)`` holds them for as long as they are set.
  @usableFromInline var dependencies: Unmanaged<DependencyBox>?
  /// 1 in the reduction, one more per presentation around it; 0 outside any reduction.
  @usableFromInline var depth: Int

  @usableFromInline
  init(dependencies: Unmanaged<DependencyBox>?, depth: Int) {
    self.dependencies = dependencies
    self.depth = depth
  }

  /// Runs `body`, reductions, with `values` in force on this thread at depth 1, then restores what
  /// the thread had.
  ///
  /// The values come in a box the Station holds, so that setting them retains nothing: a copy of
  /// the values, made here to take its address, cost a retain and a release per batch.
  @inlinable
  static func reducing(with values: DependencyBox?, _ body: () -> Void) {
    let context = ofThisThread
    let outer = context.pointee
    context.pointee = ReductionContext(dependencies: values.map(Unmanaged.passUnretained), depth: 1)
    body()
    context.pointee = outer
  }

  /// This thread's context, made the first time the thread asks.
  @usableFromInline
  static var ofThisThread: UnsafeMutablePointer<ReductionContext> {
    if let context = onThread { return context }
    // From `malloc`, so that the key's destructor, a C function, frees it with `free`. The context
    // holds no reference (its dependencies are unretained), so freeing it needs no deinitialization.
    guard let memory = malloc(MemoryLayout<ReductionContext>.stride) else {
      fatalError("Dripper could not allocate a reduction context")
    }
    let context = memory.bindMemory(to: ReductionContext.self, capacity: 1)
    context.initialize(to: ReductionContext(dependencies: nil, depth: 0))
    pthread_setspecific(key, context)
    return context
  }

  /// This thread's context, or `nil` if no reduction has run on it yet.
  static var onThread: UnsafeMutablePointer<ReductionContext>? {
    pthread_getspecific(key)?.assumingMemoryBound(to: ReductionContext.self)
  }

  /// The context of the reduction on this thread, or `nil` outside any.
  static var inReduction: UnsafeMutablePointer<ReductionContext>? {
    guard let context = onThread, context.pointee.depth > 0 else { return nil }
    return context
  }

  /// The dependencies of the reduction on this thread, or `nil`.
  @usableFromInline
  static var dependencies: DependencyValues? {
    onThread?.pointee.dependencies?.takeUnretainedValue().values
  }

  /// The shared values of the Station whose reduction runs on this thread, if its dependencies are
  /// in force (not hidden by a harness that binds its own).
  @usableFromInline
  static var sharing: StationSharing?? {
    guard let context = onThread, context.pointee.depth > 0, let box = context.pointee.dependencies else {
      return nil
    }
    return .some(box._withUnsafeGuaranteedRef { $0.sharing })
  }

  /// The number of the pour being reduced on this thread, or 0 outside a Station's reduction.
  @usableFromInline
  static var currentPour: UInt64 {
    onThread?.pointee.dependencies?._withUnsafeGuaranteedRef { $0.reducingPour.load(ordering: .relaxed) } ?? 0
  }

  /// The depth on this thread: 0 outside any reduction.
  @usableFromInline
  static var depth: Int {
    onThread?.pointee.depth ?? 0
  }

  /// Runs `body` one level deeper and returns its result, if the thread is in a reduction;
  /// returns `nil`, without running it, if it is not.
  @usableFromInline
  static func deeper<Result>(_ body: () -> Result) -> Result? {
    guard let context = inReduction else { return nil }
    context.pointee.depth += 1
    defer { context.pointee.depth -= 1 }
    return body()
  }

  /// Runs `body` with the reduction's dependencies hidden, so that the task-local it binds is what
  /// ``DependencyValues/current`` reads.
  @usableFromInline
  static func hidingDependencies<Result>(_ body: () throws -> Result) rethrows -> Result {
    guard let context = onThread, let values = context.pointee.dependencies else { return try body() }
    context.pointee.dependencies = nil
    defer { context.pointee.dependencies = values }
    return try body()
  }
}

/// The thread-local's key, made on first use. A thread's context is freed when the thread ends.
private let key: pthread_key_t = {
  var key = pthread_key_t()
  let status = pthread_key_create(&key) { context in free(context) }
  precondition(status == 0, "Dripper could not create its thread-local key (pthread_key_create: \(status))")
  return key
}()

/// A Station's dependencies, in an object of their own so that a reduction's context can refer to
/// them without retaining them (see ``ReductionContext/reducing(with:_:)``).
@usableFromInline
final class DependencyBox: Sendable {
  /// The values.
  @usableFromInline let values: DependencyValues
  /// The shared values the Station holds, kept apart so that a reduction reaches them without
  /// copying the values (see ``Shared``).
  @usableFromInline let sharing: StationSharing?

  /// The number of the pour being reduced, stored by the Station before each reduction: what a
  /// host's key records with the entry it appends, so that a pour whose entry its storage lost is
  /// told so (see ``PourTask/failure``).
  @usableFromInline let reducingPour = Atomic<UInt64>(0)

  @usableFromInline
  init(_ values: DependencyValues) {
    self.values = values
    self.sharing = values.sharing
  }
}
