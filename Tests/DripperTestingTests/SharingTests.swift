import Dripper
import DripperTesting
import Foundation
import Synchronization
import Testing

struct ListSettings: Equatable, Sendable, Codable {
  var sort = "date"
  var showDone = true
}

struct Stats: Equatable, Sendable {
  var count = 0
}

struct Profile: Equatable, Sendable {
  @Shared var stats: Stats
}

/// TCA's `SharedFeature` (SharedTests), written again as a Dripper.
struct SharedFeature: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var profile: Profile
    @Shared var sharedCount: Int
    @Shared var stats: Stats
  }
  enum Action: Equatable, Sendable {
    case increment
    case incrementStats
    case noop
    case request
    case sharedIncrement
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increment:
        state.count += 1
        return .none
      case .incrementStats:
        state.profile.$stats.withLock { $0.count += 1 }
        state.$stats.withLock { $0.count += 1 }
        return .none
      case .noop:
        return .none
      case .request:
        return .run { [sharedCount = state.$sharedCount] pour in
          sharedCount.withLock { $0 = 42 }
          await pour(.sharedIncrement)
        }
      case .sharedIncrement:
        state.$sharedCount.withLock { $0 += 1 }
        return .none
      }
    }
  }
}

extension SharedFeature.State {
  /// Every shared value its own.
  static func separate() -> Self {
    Self(
      profile: Profile(stats: Shared(value: Stats())), sharedCount: Shared(value: 0),
      stats: Shared(value: Stats()))
  }
}

/// A list of meetings and a detail screen holding one of them: TCA's SyncUps, with one value.
struct Meetings: Dripper {
  struct Meeting: Equatable, Sendable, Identifiable {
    let id: Int
    var title: String
  }
  struct State: Equatable, Sendable {
    @Shared var meetings: IdentifiedArrayOf<Meeting>
    var detail: Detail.State?
  }
  enum Action: Equatable, Sendable {
    case open(Int)
    case detail(Detail.Action)
  }

  struct Detail: Dripper {
    struct State: Equatable, Sendable {
      @Shared var meeting: Meeting
    }
    enum Action: Equatable, Sendable { case rename(String) }
    var body: some DripperOf<Self> {
      Drip { state, action in
        if case .rename(let title) = action { state.$meeting.withLock { $0.title = title } }
        return .none
      }
    }
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .open(let id) = action, let meeting = state.$meetings[id: id] {
        state.detail = Detail.State(meeting: meeting)
      }
      return .none
    }
    .ifLet(\.detail, action: CasePath(Action.detail) { if case .detail(let a) = $0 { a } else { nil } }) {
      Detail()
    }
  }
}

@Suite struct SharingTests {
  /// TCA's testSharing.
  @Test func sharedValuesAreAssertedLikeTheRestOfTheState() async {
    let station = TestStation(initialState: SharedFeature.State.separate()) { SharedFeature() }
    await station.pour(.noop)
    await station.pour(.increment) { $0.count = 1 }
    await station.pour(.sharedIncrement) { $0.$sharedCount.withLock { $0 = 1 } }
    await station.pour(.incrementStats) {
      $0.profile.$stats.withLock { $0.count = 1 }
      $0.$stats.withLock { $0.count = 1 }
    }
    #expect(station.state.profile.stats.count == 1)
    await station.finish()
  }

  /// TCA's testMultiSharing: two holders of one value, both written in one reduction, see each
  /// other's write; one assertion through either holder says it (a second is allowed).
  @Test func twoHoldersOfOneValueSeeEachOthersWrites() async {
    let stats = Shared(value: Stats())
    let station = TestStation(
      initialState: SharedFeature.State(
        profile: Profile(stats: stats), sharedCount: Shared(value: 0), stats: stats)
    ) { SharedFeature() }
    await station.pour(.incrementStats) { $0.$stats.withLock { $0.count = 2 } }
    await station.pour(.incrementStats) {
      $0.profile.$stats.withLock { $0.count = 4 }
      $0.$stats.withLock { $0.count = 4 }
    }
    #expect(stats.wrappedValue.count == 4)
    await station.finish()
  }

  /// TCA's testIncrementalMutation.
  @Test func anAssertionMayChangeASharedValueInPlace() async {
    let station = TestStation(initialState: SharedFeature.State.separate()) { SharedFeature() }
    await station.pour(.sharedIncrement) { $0.$sharedCount.withLock { $0 += 1 } }
    await station.finish()
  }

  /// TCA's testSharing_Failure and an unasserted change: both fail, with the shared value's diff.
  @Test func aWrongOrMissingSharedAssertionFails() async {
    let station = TestStation(initialState: SharedFeature.State.separate()) { SharedFeature() }
    await withExpectedFailure {
      await station.pour(.sharedIncrement) { $0.$sharedCount.withLock { $0 = 2 } }
    } matching: {
      mentions("- expected, + actual")($0) && mentions("-   sharedCount: 2")($0)
        && mentions("+   sharedCount: 1")($0)
    }
    await withExpectedFailure {
      await station.pour(.sharedIncrement)
    } matching: {
      mentions("no change was expected")($0) && mentions("+   sharedCount: 2")($0)
    }
    #expect(station.state.sharedCount == 2)
    await station.finish()
  }

  /// TCA's testEffect: a value an effect writes is asserted with the next step.
  @Test func aValueAnEffectWritesIsAssertedWithTheNextStep() async {
    let station = TestStation(initialState: SharedFeature.State.separate()) { SharedFeature() }
    await station.pour(.request)
    await station.receive(.sharedIncrement) { $0.$sharedCount.withLock { $0 = 43 } }
    await station.finish()
  }

  /// TCA's testSharing_NonExhaustive.
  @Test func aNonExhaustiveTestNeedNotAssertSharedValues() async {
    let station = TestStation(initialState: SharedFeature.State.separate()) { SharedFeature() }
    station.exhaustivity = .off
    await station.pour(.sharedIncrement)
    #expect(station.state.sharedCount == 1)
    await station.pour(.sharedIncrement) { $0.$sharedCount.withLock { $0 = 2 } }
    await station.finish()
  }

  /// A detail screen holding one element of a shared list writes through to the list, and the
  /// test says the change once.
  @Test func aDerivedElementWritesThroughToTheList() async {
    let meetings = Shared(
      value: IdentifiedArrayOf<Meetings.Meeting>([Meetings.Meeting(id: 1, title: "Standup")]))
    let station = TestStation(initialState: Meetings.State(meetings: meetings)) { Meetings() }
    await station.pour(.open(1)) { $0.detail = Meetings.Detail.State(meeting: $0.$meetings[id: 1]!) }
    await station.pour(.detail(.rename("Retro"))) { $0.detail?.$meeting.withLock { $0.title = "Retro" } }
    #expect(meetings.wrappedValue[id: 1]?.title == "Retro")
    #expect(station.state.meetings[id: 1]?.title == "Retro")
    // A part of a shared value is a shared value too.
    let title = meetings[id: 1]!.title
    title.withLock { $0 = "Planning" }
    #expect(meetings.wrappedValue[id: 1]?.title == "Planning")
    await station.pour(.detail(.rename("Review"))) { $0.$meetings.withLock { $0[id: 1]?.title = "Review" } }
    await station.finish()
  }

  /// An element that left the list keeps reading its last value and writes nothing.
  @Test func aDerivedElementThatLeftTheListWritesNothing() {
    let meetings = Shared(
      value: IdentifiedArrayOf<Meetings.Meeting>([Meetings.Meeting(id: 1, title: "Standup")]))
    let meeting = meetings[id: 1]!
    meetings.withLock { $0.remove(id: 1) }
    meeting.withLock { $0.title = "Gone" }
    #expect(meeting.wrappedValue.title == "Standup")
    #expect(meetings.wrappedValue.isEmpty)
    #expect(meetings[id: 1] == nil)
  }

  /// Two Stations holding one value: a write in one is read by the other at once, and the other's
  /// observers see its state again.
  @Test func aWriteInOneStationIsSeenByAnotherAndItsObservers() async {
    let settings = SharedValue(Stats())
    let first = Station(
      initialState: SharedFeature.State(
        profile: Profile(stats: Shared(settings)), sharedCount: Shared(value: 0), stats: Shared(settings))
    ) {
      SharedFeature()
    }
    let second = Station(
      initialState: SharedFeature.State(
        profile: Profile(stats: Shared(value: Stats())), sharedCount: Shared(value: 0),
        stats: Shared(settings))
    ) {
      SharedFeature()
    }
    let seen = Task {
      for await state in second.states where state.stats.count == 2 { return true }
      return false
    }
    await second.reducePending()
    await first.pour(.incrementStats).finish()
    #expect(settings.value.count == 2)
    // Bounded: a missing republication fails here rather than hanging the suite.
    let sawIt = try? await withTimeout(.seconds(10), clock: ContinuousClock()) { await seen.value }
    #expect(sawIt == true)
    #expect(await second.state.stats.count == 2)
  }

  /// A read-modify-write is atomic: increments from many OS threads and tasks all count.
  @Test func withLockIsAtomicFromManyThreads() async {
    let count = Shared(value: 0)
    let threads = 8
    let perThread = 2_000
    let finished = DispatchGroup()
    for _ in 0..<threads {
      finished.enter()
      Thread {
        for _ in 0..<perThread { count.withLock { $0 += 1 } }
        finished.leave()
      }.start()
    }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<threads {
        group.addTask { for _ in 0..<perThread { count.withLock { $0 += 1 } } }
      }
    }
    await withCheckedContinuation { continuation in
      finished.notify(queue: .global()) { continuation.resume() }
    }
    #expect(count.wrappedValue == 2 * threads * perThread)
  }

  /// A released Station lets go of its shared values as it is released, not at the next write.
  @Test func aReleasedStationLetsGoAtOnce() async {
    let settings = SharedValue(Stats())
    var station: StationOf<SharedFeature>? = Station(
      initialState: SharedFeature.State(
        profile: Profile(stats: Shared(settings)), sharedCount: Shared(value: 0), stats: Shared(settings))
    ) { SharedFeature() }
    #expect(settings.subscriberCount == 1)
    await station?.pour(.incrementStats).finish()
    station = nil
    #expect(settings.subscriberCount == 0)
    #expect(settings.value.count == 2)
  }

  /// A value a Station's state did not hold at the start, used in a reduction, is held from then on.
  @Test func aValueFirstUsedInAReductionIsHeld() async {
    let source = SharedValue(IdentifiedArrayOf<Meetings.Meeting>([Meetings.Meeting(id: 1, title: "a")]))
    let station = Station(initialState: Meetings.State(meetings: Shared(source))) { Meetings() }
    #expect(source.subscriberCount == 1)
    await station.pour(.open(1)).finish()
    await station.pour(.detail(.rename("b"))).finish()
    #expect(source.value[id: 1]?.title == "b")
    #expect(source.subscriberCount == 1)
  }
}
