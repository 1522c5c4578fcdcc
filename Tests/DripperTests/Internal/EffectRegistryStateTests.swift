import Testing

@testable import Dripper

/// The registry's state machine on its own: synchronous, no task, each event's decision checked.
@Suite struct EffectRegistryStateTests {
  typealias State = EffectRegistryState<String>
  let origin = EffectOrigin(fileID: #fileID, line: #line)

  func key(_ id: Int) -> EffectKey { EffectKey(namespace: .root, kind: .id(AnySendableHashable(id))) }

  func request(
    _ role: State.Role, pour: PourNumber? = 1, parent: EffectSlotID? = nil, keys: SmallList<EffectKey> = [],
    guarded: Bool = false
  ) -> State.Request {
    State.Request(role: role, pour: pour, parent: parent, keys: keys, origin: origin, guarded: guarded)
  }

  @Test func aTaskSlotEndsWithItsTaskAndFreesEverything() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let slot = state.reserve(request(.task, keys: [key(1)]))!
    #expect(!state.isIdle)
    state.taskEnded(slot, &after)
    #expect(state.isEmpty)
    #expect(after.isEmpty)
  }

  /// A slot whose child feature left is reported only once its task has been told: a task started
  /// off the actor and attached after the cancellation may pour before it learns of it.
  @Test func aSlotWhoseChildLeftBeforeItsTaskWasAttachedIsQuietlyCancelled() async {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let namespace = EffectKey(namespace: .root, kind: .namespace)
    let slot = state.reserve(request(.task, keys: [namespace]))!
    state.cancel(namespace, &after)
    #expect(state.liveness(slot) == .cancelled)
    let task = EffectTask {}
    #expect(state.attach(task, to: slot) != nil)
    #expect(state.liveness(slot) == .childLeft)
    state.taskEnded(slot, &after)
    #expect(state.liveness(slot) == .ended)
  }

  @Test func aParentEndsWithItsLastChild() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let parent = state.reserve(request(.join, guarded: true))!
    let first = state.reserve(request(.task, parent: parent))!
    let second = state.reserve(request(.task, parent: parent))!
    state.release(parent, &after)
    state.taskEnded(first, &after)
    #expect(state.slots[parent] != nil)
    state.taskEnded(second, &after)
    #expect(state.slots[parent] == nil)
    #expect(state.isEmpty)
  }

  @Test func aSequenceStartsEachPartWhenThePreviousEnds() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let sequence = state.reserve(request(.join, guarded: true))!
    let first = state.reserve(request(.task, parent: sequence))!
    state.beginSequence(sequence, parts: ["second", "third"], upcomingKeys: [], &after)
    #expect(after.start.isEmpty)
    state.taskEnded(first, &after)
    #expect(after.start.map(\.work) == ["second"])
    // The starter releases the guard; the part started nothing, so the next one comes.
    after = EffectRegistryAftermath()
    state.release(sequence, &after)
    #expect(after.start.map(\.work) == ["third"])
    after = EffectRegistryAftermath()
    state.release(sequence, &after)
    #expect(after.start.isEmpty)
    #expect(state.isEmpty)
  }

  @Test func cancellingAKeyHeldByASequenceSkipsItInLaterParts() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let sequence = state.reserve(request(.join, guarded: true))!
    let first = state.reserve(request(.task, parent: sequence))!
    state.beginSequence(sequence, parts: ["second"], upcomingKeys: [key(7)], &after)
    state.cancel(key(7), &after)
    state.taskEnded(first, &after)
    #expect(after.start.first?.skipping == [key(7)])
  }

  @Test func enqueueWaitsForTheKeyThenStartsInArrivalOrder() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let scope = request(.join, keys: [key(1)])
    guard
      case .start(let running) = state.admit(under: key(1), policy: .enqueue, scope: scope, work: "a", &after)
    else {
      Issue.record("the first effect should start")
      return
    }
    #expect(state.admit(under: key(1), policy: .enqueue, scope: scope, work: "b", &after) == .queued)
    #expect(state.admit(under: key(1), policy: .enqueue, scope: scope, work: "c", &after) == .queued)
    state.release(running, &after)
    #expect(after.start.map(\.work) == ["b"])
    let second = after.start[0].slot
    after = EffectRegistryAftermath()
    state.release(second, &after)
    #expect(after.start.map(\.work) == ["c"])
  }

  @Test func dropNewDropsWhileTheKeyIsBusyAndAdmitsOnceCancelled() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let scope = request(.join, keys: [key(1)])
    guard case .start = state.admit(under: key(1), policy: .dropNew, scope: scope, work: "a", &after) else {
      Issue.record("the first effect should start")
      return
    }
    #expect(state.admit(under: key(1), policy: .dropNew, scope: scope, work: "b", &after) == .dropped)
    state.cancel(key(1), &after)
    guard case .start = state.admit(under: key(1), policy: .dropNew, scope: scope, work: "c", &after) else {
      Issue.record("a cancelled effect frees its key")
      return
    }
  }

  @Test func cancellingAPourReachesOnlyItsSlots() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let mine = state.reserve(request(.waiting, pour: 1))!
    let other = state.reserve(request(.waiting, pour: 2))!
    state.cancel(pour: 1, &after)
    #expect(state.slots[mine] == nil)
    #expect(state.slots[other] != nil)
    #expect(state.isCancelled(pour: 1))
    #expect(state.reserve(request(.task, pour: 1)) == nil)
  }

  @Test func aThrottleWindowHoldsThenFiresThenCloses() {
    var state = State()
    var after = EffectRegistryAftermath<String>()
    let elapsed = Lock(Duration.zero)
    let now: @Sendable () -> Duration = { elapsed.withLock { $0 } }
    let hold = request(.waiting, keys: [key(1)])
    let first = state.throttle(
      under: key(1), interval: .seconds(1), latest: true, windowKeys: [key(1)], hold: hold, work: "1",
      now: now,
      &after)
    #expect(first == .runNow)
    let second = state.throttle(
      under: key(1), interval: .seconds(1), latest: true, windowKeys: [key(1)], hold: hold, work: "2",
      now: now,
      &after)
    guard case .held(let timer?, let remaining) = second else {
      Issue.record("held, with a timer")
      return
    }
    #expect(remaining == .seconds(1))
    elapsed.withLock { $0 = .seconds(1) }
    state.fireWindow(of: key(1), timer: timer, now: { .zero }, &after)
    #expect(after.start.map(\.work) == ["2"])
    // The held effect opened the next window; once nothing is held and its time is up, the
    // window goes when its timer fires.
    state.taskEnded(timer, &after)
    state.release(after.start[0].slot, &after)
    #expect(state.windowCount == 1)
  }

  @Test func slotIDsOfEndedSlotsNeverReachANewOne() {
    var table = SlotTable<String>()
    let first = table.insert("first")
    _ = table.remove(first)
    let second = table.insert("second")
    #expect(table[first] == nil)
    #expect(table[second] == "second")
    #expect(first != second)
  }

  @Test func aSlotChangesInPlaceOnlyWhileItsIDIsCurrent() {
    var table = SlotTable<Int>()
    let first = table.insert(1)
    #expect(table.update(first) { $0 += 10 } != nil)
    #expect(table[first] == 11)
    _ = table.remove(first)
    let second = table.insert(2)
    #expect(table.update(first) { $0 += 10 } == nil)
    #expect(!table.contains(first))
    #expect(table[second] == 2)
  }

  @Test func idsKeptAcrossAReleaseOrACompactionNeverReachANewSlot() {
    var table = SlotTable<Int>()
    // Past the retained capacity, emptying the table gives its storage back.
    let released = (0..<100).map { table.insert($0) }
    for id in released { #expect(table.remove(id) != nil) }
    // Over 1,024 entries and under a quarter in use, the free tail is dropped.
    let compacted = (0..<2_000).map { table.insert($0) }
    for id in compacted.dropFirst(100).reversed() { _ = table.remove(id) }
    #expect(table.count == 100)
    #expect(table.entryCount < 500)
    let fresh = (0..<2_000).map { table.insert(10_000 + $0) }
    for id in released + compacted.dropFirst(100) {
      #expect(!table.contains(id))
      #expect(table[id] == nil)
      #expect(table.update(id) { $0 = -1 } == nil)
    }
    #expect(Set(fresh).count == fresh.count)
    #expect(fresh.allSatisfy { table[$0].map { $0 >= 10_000 } == true })
    #expect(compacted.prefix(100).enumerated().allSatisfy { table[$0.element] == $0.offset })
  }

  @Test func smallListsAndSlotSetsKeepEveryElement() {
    for count in [0, 1, 2, 5] {
      var list = SmallList<Int>()
      list.append(contentsOf: 0..<count)
      #expect(Array(list) == Array(0..<count))
      #expect(list.isEmpty == (count == 0))
      var set = SlotSet()
      for slot in 0..<count { set.insert(EffectSlotID(slot)) }
      #expect(Set(set) == Set((0..<count).map(EffectSlotID.init)))
    }
  }
}

extension EffectRegistryState.Admission: Equatable {
  static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.start(let a), .start(let b)): a == b
    case (.queued, .queued), (.dropped, .dropped): true
    default: false
    }
  }
}

extension EffectRegistryState.ThrottleDecision: Equatable {
  static func == (lhs: Self, rhs: Self) -> Bool {
    switch (lhs, rhs) {
    case (.runNow, .runNow), (.dropped, .dropped): true
    case (.held(let a, let b), .held(let c, let d)): a == c && b == d
    default: false
    }
  }
}
