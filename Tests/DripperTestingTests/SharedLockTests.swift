import Dispatch
import Dripper
import DripperTesting
import Foundation
import Testing

/// TCA's SyncUpDetail deletion, cut down: a detail holds an element derived from a shared list and
/// deletes it with `$list.withLock { $0.remove(id: state.item.id) }`, reading the element inside
/// the list's own write.
struct ItemDetail: Dripper {
  struct Item: Equatable, Sendable, Identifiable {
    let id: Int
    var title: String
  }
  struct State: Equatable, Sendable {
    @Shared var items: IdentifiedArrayOf<Item>
    @Shared var item: Item
  }
  enum Action: Equatable, Sendable { case delete, renameTwice }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .delete:
        state.$items.withLock { _ = $0.remove(id: state.item.id) }
      case .renameTwice:
        state.$items.withLock { items in
          items[id: state.item.id]?.title = "outer"
          state.$items.withLock { $0[id: 1]?.title = "inner" }
        }
      }
      return .none
    }
  }
}

@Suite struct SharedLockTests {
  private func detail() -> (Shared<IdentifiedArrayOf<ItemDetail.Item>>, ItemDetail.State) {
    let items = Shared(value: IdentifiedArrayOf<ItemDetail.Item>([.init(id: 1, title: "Standup")]))
    return (items, ItemDetail.State(items: items, item: items[id: 1]!))
  }

  /// Issue 50: this trapped with "Recursive call to lock Mutex".
  @Test func anElementDerivedFromAListIsReadInsideTheListsWrite() async {
    let (items, state) = detail()
    let station = TestStation(initialState: state) { ItemDetail() }
    await station.pour(.delete) { $0.$items.withLock { _ = $0.remove(id: 1) } }
    #expect(items.wrappedValue.isEmpty)
    await station.finish()
  }

  /// A read of the value inside its own write, on the same thread, is the value as the lock holds
  /// it: before the body's change.
  @Test func aReadInsideTheValuesOwnWriteSeesTheValueBeforeTheChange() {
    let count = Shared(value: 1)
    let seen = count.withLock { value -> Int in
      value += 10
      return count.wrappedValue
    }
    #expect(seen == 1)
    #expect(count.wrappedValue == 11)
    count.withLock { $0 += count.wrappedValue }
    #expect(count.wrappedValue == 22)
  }

  /// A read from another thread as a write ends sees the written value: only the writing thread
  /// reads inside the lock. Both run on threads of their own, never blocking the tasks' threads.
  @Test func aReadFromAnotherThreadSeesTheWrittenValue() async {
    let count = Shared(value: 0)
    let inside = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    async let written: Void = onThread {
      count.withLock { value in
        value = 5
        inside.signal()
        release.wait()
      }
    }
    async let read = onThread {
      inside.wait()
      release.signal()
      return count.wrappedValue
    }
    await written
    #expect(await read == 5)
  }

  /// A write inside a write to the same value is a clear failure, reported, and changes nothing
  /// the outer write does not: no deadlock, no trap.
  @Test func aWriteInsideItsOwnWriteIsRefusedAndReported() async {
    let (items, state) = detail()
    let station = TestStation(initialState: state) { ItemDetail() }
    await withExpectedFailure {
      await station.pour(.renameTwice) { $0.$items.withLock { $0[id: 1]?.title = "outer" } }
    } matching: {
      mentions("ignored a write to a shared IdentifiedArray")($0) && mentions("inside a write to it")($0)
    }
    #expect(items.wrappedValue[id: 1]?.title == "outer")
    await station.finish()
  }
}

/// Runs `body` on a thread of its own and returns what it returns: for tests that block.
func onThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: body()) }.start()
  }
}
