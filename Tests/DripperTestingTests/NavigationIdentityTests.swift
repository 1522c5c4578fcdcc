import Dripper
import DripperTesting
import Synchronization
import Testing

/// A card that ticks every second, and loads a response that the test releases.
struct Card: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    var ticks = 0
    var response: String?
  }
  enum Action: Equatable, Sendable {
    case startTimer
    case tick
    case load
    case loaded(String)
    case closeTapped
  }

  @Dependency(\.clock) var clock
  @Dependency(\.dismiss) var dismiss
  /// What `load` waits for before it pours: the test opens it.
  let release: LoadRelease

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .startTimer:
        return .run { pour in
          while true {
            try await clock.sleep(for: .seconds(1))
            await pour(.tick)
          }
        }
      case .tick:
        state.ticks += 1
        return .none
      case .load:
        // The answer comes on a task of its own, which the effect's cancellation does not reach:
        // a request already on its way when the card goes.
        return .run { [id = state.id, release] pour in
          let answer = Task {
            await release.wait()
            await pour(.loaded("for card \(id)"))
          }
          await answer.value
        }
      case .loaded(let response):
        state.response = response
        return .none
      case .closeTapped:
        return .run { _ in await dismiss() }
      }
    }
  }
}

/// A gate the test opens, for `Card.load`.
final class LoadRelease: Sendable {
  private let opened = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  func open() {
    let waiters = opened.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let now = opened.withLock { state in
        if state.isOpen { return true }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}

/// A destination that is a card or an alert-like notice.
struct CardDestination: Dripper {
  enum State: Equatable, Sendable {
    case card(Card.State)
    case notice(String)
  }
  enum Action: Equatable, Sendable {
    case card(Card.Action)
    case notice
  }

  let release: LoadRelease

  var body: some DripperOf<Self> {
    EmptyDripper()
      .ifCaseLet(
        CasePath(State.card) { if case .card(let s) = $0 { s } else { nil } },
        action: CasePath(Action.card) { if case .card(let a) = $0 { a } else { nil } }
      ) { Card(release: release) }
  }
}

/// A screen that presents one card at a time, a destination, and a list of cards; reducers
/// before and after the composed children remove them from outside.
struct Deck: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var card: Card.State?
    @PresentationState var destination: CardDestination.State?
    var plain: Card.State?
    var rows: IdentifiedArrayOf<Card.State> = []
    var path = StackState<Card.State>()
    var folders: IdentifiedArrayOf<Folder.State> = []
  }
  enum Action: Equatable, Sendable {
    case show(Int)
    case showAfterDismissing(Int)
    case card(PresentationAction<Card.Action>)
    case showCardDestination(Int)
    case showNotice
    case destination(PresentationAction<CardDestination.Action>)
    case plain(Card.Action)
    case rows(IdentifiedActionOf<Card>)
    case path(StackAction<Card.State, Card.Action>)
    case folders(IdentifiedActionOf<Folder>)
    case setPlain(Int?)
    case addFolder(Int)
    case addRow(Int)
    case push(Int)
    /// Removes every child from a reducer after the composed ones.
    case clearAfter
    /// Removes every child from a reducer before the composed ones.
    case clearBefore
  }

  let release: LoadRelease

  var body: some DripperOf<Self> {
    Drip { state, action in
      guard action == .clearBefore else { return .none }
      state.clear()
      return .none
    }
    Drip { state, action in
      switch action {
      case .show(let id):
        state.card = Card.State(id: id)
      case .showAfterDismissing(let id):
        state.card = nil
        state.card = Card.State(id: id)
      case .card(.dismiss):
        // Dismissing the card presents the next one.
        if let id = state.card?.id { state.card = Card.State(id: id + 100) }
      case .showCardDestination(let id):
        state.destination = .card(Card.State(id: id))
      case .showNotice:
        state.destination = .notice("Saved")
      case .setPlain(let id):
        state.plain = id.map { Card.State(id: $0) }
      case .addRow(let id):
        state.rows.append(Card.State(id: id))
      case .push(let id):
        state.path.append(Card.State(id: id))
      case .path(.popFrom):
        // Popping any screen goes back to the root.
        state.path.removeAll()
      case .addFolder(let id):
        state.folders.append(Folder.State(id: id))
      case .card, .destination, .plain, .rows, .path, .folders, .clearAfter, .clearBefore:
        break
      }
      return .none
    }
    .ifLet(\.$card, action: .card) { Card(release: release) }
    .ifLet(\.$destination, action: .destination) { CardDestination(release: release) }
    .ifLet(\.plain, action: .plain) { Card(release: release) }
    .forEach(\.rows, action: .rows) { Card(release: release) }
    .forEach(\.path, action: .path) { Card(release: release) }
    .forEach(\.folders, action: .folders) { Folder(release: release) }
    Drip { state, action in
      guard action == .clearAfter else { return .none }
      state.clear()
      return .none
    }
  }
}

extension Deck.State {
  /// Removes every child: a presentation, a destination, a plain child, rows and screens.
  mutating func clear() {
    card = nil
    destination = nil
    plain = nil
    rows = []
    path.removeAll()
  }
}

/// A row of a list with a card of its own, which a reducer in the row's body around its `ifLet`
/// may close.
struct Folder: Dripper {
  struct State: Equatable, Sendable, Identifiable {
    let id: Int
    @PresentationState var card: Card.State?
    var plain: Card.State?
  }
  enum Action: Equatable, Sendable {
    case open(Int)
    case card(PresentationAction<Card.Action>)
    case plain(Card.Action)
    case closeFromOutside
  }

  let release: LoadRelease

  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .open(let id) = action {
        state.card = Card.State(id: id)
        state.plain = Card.State(id: id)
      }
      return .none
    }
    .ifLet(\.$card, action: CasePath(Action.card) { if case .card(let a) = $0 { a } else { nil } }) {
      Card(release: release)
    }
    .ifLet(\.plain, action: CasePath(Action.plain) { if case .plain(let a) = $0 { a } else { nil } }) {
      Card(release: release)
    }
    Drip { state, action in
      if action == .closeFromOutside {
        state.card = nil
        state.plain = nil
      }
      return .none
    }
  }
}

extension CasePath<Deck.Action, PresentationAction<Card.Action>> {
  static var card: Self { Self(Deck.Action.card) { if case .card(let a) = $0 { a } else { nil } } }
}

extension CasePath<Deck.Action, PresentationAction<CardDestination.Action>> {
  static var destination: Self {
    Self(Deck.Action.destination) { if case .destination(let a) = $0 { a } else { nil } }
  }
}

extension CasePath<Deck.Action, Card.Action> {
  static var plain: Self { Self(Deck.Action.plain) { if case .plain(let a) = $0 { a } else { nil } } }
}

extension CasePath<Deck.Action, IdentifiedActionOf<Card>> {
  static var rows: Self { Self(Deck.Action.rows) { if case .rows(let a) = $0 { a } else { nil } } }
}

extension CasePath<Deck.Action, IdentifiedActionOf<Folder>> {
  static var folders: Self { Self(Deck.Action.folders) { if case .folders(let a) = $0 { a } else { nil } } }
}

extension CasePath<Deck.Action, StackAction<Card.State, Card.Action>> {
  static var path: Self { Self(Deck.Action.path) { if case .path(let a) = $0 { a } else { nil } } }
}

/// Identity decides a presentation, and a child removed anywhere has its effects cancelled
/// (issue 41).
@Suite struct NavigationIdentityTests {
  private func deck(
    clock: TestClock = TestClock(), release: LoadRelease = LoadRelease()
  ) -> TestStation<Deck.State, Deck.Action> {
    TestStation(initialState: Deck.State()) {
      Deck(release: release)
    } withDependencies: {
      $0.clock = clock
    }
  }

  /// A presented child replaced by one of another `id` is a new presentation: the old card's timer
  /// never ticks into the new card.
  @Test func aChildOfAnotherIdentityIsANewPresentation() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.startTimer)))
    await station.pour(.show(2)) { $0.card = Card.State(id: 2) }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  /// Replacing a presented value with one of the same identity keeps the presentation.
  @Test func aChildOfTheSameIdentityKeepsItsPresentation() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.startTimer)))
    await clock.advance(by: .seconds(1))
    await station.receive(.card(.presented(.tick))) { $0.card?.ticks = 1 }
    await station.pour(.show(1)) { $0.card?.ticks = 0 }
    await clock.advance(by: .seconds(1))
    await station.receive(.card(.presented(.tick))) { $0.card?.ticks = 1 }
    await station.skipInFlightEffects()
  }

  /// An enum destination that switches to another case is a new presentation: the card's ticks
  /// stop when the notice replaces it.
  @Test func aDestinationSwitchingCaseIsANewPresentation() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.showCardDestination(1)) { $0.destination = .card(Card.State(id: 1)) }
    await station.pour(.destination(.presented(.card(.startTimer))))
    await station.pour(.showNotice) { $0.destination = .notice("Saved") }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  /// A parent that handles a child's `.dismiss` by presenting another child keeps the new one.
  @Test func aDismissalAnsweredWithAnotherChildKeepsIt() async {
    let station = deck()
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.closeTapped)))
    await station.receive(.card(.dismiss)) { $0.card = Card.State(id: 101) }
    await station.finish()
  }

  /// What an effect poured before its presentation ended, but that reaches the actor after, is
  /// dropped: the old card's response never lands in the new card.
  @Test func aResponsePouredBeforeAReopeningNeverReachesTheNewChild() async {
    let release = LoadRelease()
    let station = deck(release: release)
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.load)))
    await station.pour(.showAfterDismissing(2)) { $0.card = Card.State(id: 2) }
    await withExpectedFailure {
      release.open()
      await station.finish()
    } matching: {
      mentions("dropped .card(.presented(.loaded(\"for card 1\")))")($0)
        && mentions("after its child feature left the state")($0)
    }
    #expect(station.state.card == Card.State(id: 2))
  }

  /// TCA's `testOuterCancellation` (PresentationReducerTests, StackReducerTests): a reducer after
  /// the composed child removes it, and its effects are cancelled at the end of that reduction.
  @Test func aChildRemovedByAReducerAroundItHasItsEffectsCancelled() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.startTimer)))
    await station.pour(.showCardDestination(2)) { $0.destination = .card(Card.State(id: 2)) }
    await station.pour(.destination(.presented(.card(.startTimer))))
    await station.pour(.setPlain(3)) { $0.plain = Card.State(id: 3) }
    await station.pour(.plain(.startTimer))
    await station.pour(.addRow(4)) { $0.rows = [Card.State(id: 4)] }
    await station.pour(.rows(.element(id: 4, action: .startTimer)))
    await station.pour(.push(5)) { $0.path = [Card.State(id: 5)] }
    await station.pour(.path(.element(id: 0, action: .startTimer)))
    await station.pour(.clearAfter) {
      $0.card = nil
      $0.destination = nil
      $0.plain = nil
      $0.rows = []
      $0.path = []
    }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  /// TCA's `testOuterCancellation` with its `tapBefore`: a reducer before the composed children
  /// removes them, and their effects are cancelled in that reduction.
  @Test func aChildRemovedByAReducerBeforeItHasItsEffectsCancelled() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.show(1)) { $0.card = Card.State(id: 1) }
    await station.pour(.card(.presented(.startTimer)))
    await station.pour(.setPlain(3)) { $0.plain = Card.State(id: 3) }
    await station.pour(.plain(.startTimer))
    await station.pour(.addRow(4)) { $0.rows = [Card.State(id: 4)] }
    await station.pour(.rows(.element(id: 4, action: .startTimer)))
    await station.pour(.push(5)) { $0.path = [Card.State(id: 5)] }
    await station.pour(.path(.element(id: 0, action: .startTimer)))
    await station.pour(.clearBefore) {
      $0.card = nil
      $0.plain = nil
      $0.rows = []
      $0.path = []
    }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  /// A reducer in a list element's own body, around that element's children, closes them: their
  /// effects end with the element's action, as the Station's check does not reach into rows.
  @Test func aChildRemovedInsideAListElementHasItsEffectsCancelled() async {
    let clock = TestClock()
    let station = deck(clock: clock)
    await station.pour(.addFolder(1)) { $0.folders = [Folder.State(id: 1)] }
    await station.pour(.folders(.element(id: 1, action: .open(7)))) {
      $0.folders[id: 1]?.card = Card.State(id: 7)
      $0.folders[id: 1]?.plain = Card.State(id: 7)
    }
    await station.pour(.folders(.element(id: 1, action: .card(.presented(.startTimer)))))
    await station.pour(.folders(.element(id: 1, action: .plain(.startTimer))))
    await station.pour(.folders(.element(id: 1, action: .closeFromOutside))) {
      $0.folders[id: 1]?.card = nil
      $0.folders[id: 1]?.plain = nil
    }
    await clock.advance(by: .seconds(3))
    await station.finish()
  }

  /// A row's response that arrives after the row was removed is dropped and reported, naming where
  /// its effect was written, as for a presentation.
  @Test func aRemovedRowsLateResponseIsDroppedAndReported() async {
    let release = LoadRelease()
    let station = deck(release: release)
    await station.pour(.addRow(4)) { $0.rows = [Card.State(id: 4)] }
    await station.pour(.rows(.element(id: 4, action: .load)))
    await station.pour(.clearAfter) { $0.rows = [] }
    await station.pour(.addRow(4)) { $0.rows = [Card.State(id: 4)] }
    await withExpectedFailure {
      release.open()
      await station.finish()
    } matching: {
      mentions("for card 4")($0) && mentions("after its child feature left the state")($0)
        && mentions("NavigationIdentityTests.swift")($0)
    }
    #expect(station.state.rows == [Card.State(id: 4)])
  }

  /// `.popFrom(id:)` is judged against the stack before the parent ran: a parent that pops to the
  /// root on it gets no "already popped" diagnostic.
  @Test func aParentThatPopsToTheRootOnPopFromIsNotTold() async {
    let station = deck()
    await station.pour(.push(5)) { $0.path = [Card.State(id: 5)] }
    await station.pour(.push(6)) { $0.path[id: 1] = Card.State(id: 6) }
    await station.pour(.path(.popFrom(id: 1))) { $0.path = [] }
    await withExpectedFailure {
      await station.pour(.path(.popFrom(id: 1)))
    } matching: {
      mentions("no element of the stack has the id #1")($0)
    }
    await station.finish()
  }
}
