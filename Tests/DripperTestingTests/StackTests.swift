import Dripper
import DripperTesting
import Testing

/// A navigation stack of editors.
struct EditorStack: Dripper {
  struct State: Equatable, Sendable {
    var path = StackState<SheetEditor.State>()
  }
  enum Action: Equatable, Sendable {
    case open(String)
    case closeAll
    /// Replaces the whole stack with one editor.
    case reset(String)
    case path(StackAction<SheetEditor.State, SheetEditor.Action>)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .open(let text): state.path.append(SheetEditor.State(text: text))
      case .closeAll: state.path.removeAll()
      case .reset(let text): state.path = [SheetEditor.State(text: text)]
      case .path: break
      }
      return .none
    }
    .forEach(\.path, action: .path) { SheetEditor() }
  }
}

extension CasePath<EditorStack.Action, StackAction<SheetEditor.State, SheetEditor.Action>> {
  static var path: Self { Self(EditorStack.Action.path) { if case .path(let a) = $0 { a } else { nil } } }
}

@Suite struct StackTests {
  private func station(_ clock: TestClock) -> TestStation<EditorStack.State, EditorStack.Action> {
    TestStation(initialState: EditorStack.State()) {
      EditorStack()
    } withDependencies: {
      $0.clock = clock
    }
  }

  @Test func poppingAnElementCancelsItsEffectsAndThoseAboveIt() async {
    let clock = TestClock()
    let station = station(clock)
    for (index, text) in ["a", "b", "c"].enumerated() {
      await station.pour(.open(text)) {
        $0.path.append(SheetEditor.State(text: text))
        #expect($0.path.ids.last == StackElementID(rawValue: index))
      }
    }
    await station.pour(.path(.element(id: 0, action: .startTicking)))
    await station.pour(.path(.element(id: 1, action: .startTicking)))
    await station.pour(.path(.element(id: 2, action: .startTicking)))
    await station.pour(.path(.popFrom(id: 1))) { $0.path.pop(from: 1) }
    await clock.advance(by: .seconds(1))
    // Only the element left on the stack ticks.
    await station.receive(.path(.element(id: 0, action: .tick))) { $0.path[id: 0]?.text = "a." }
    await station.finish()
  }

  @Test func dismissInsideAnElementPopsIt() async {
    let station = station(TestClock())
    await station.pour(.open("a")) { $0.path.append(SheetEditor.State(text: "a")) }
    await station.pour(.path(.element(id: 0, action: .checkPresented))) { $0.path[id: 0]?.isPresented = true }
    await station.pour(.path(.element(id: 0, action: .closeTapped)))
    await station.receive(.path(.popFrom(id: 0))) { $0.path.removeAll() }
    await station.finish()
  }

  @Test func theParentEmptyingTheStackCancelsEveryElement() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.open("a")) { $0.path.append(SheetEditor.State(text: "a")) }
    await station.pour(.path(.element(id: 0, action: .startTicking)))
    await station.pour(.closeAll) { $0.path.removeAll() }
    await clock.advance(by: .seconds(1))
    await station.finish()
  }

  @Test func aPushTakesItsIDAndLaterAppendsFollowIt() async {
    let station = station(TestClock())
    await station.pour(.path(.push(id: 5, state: SheetEditor.State(text: "pushed")))) {
      $0.path.push(SheetEditor.State(text: "pushed"), id: 5)
    }
    await station.pour(.open("next")) { $0.path.append(SheetEditor.State(text: "next")) }
    #expect(station.state.path.ids == [5, 6])
    await station.finish()
  }

  @Test func anActionForAPoppedElementIsReported() async {
    let station = station(TestClock())
    await withExpectedFailure {
      await station.pour(.path(.element(id: 3, action: .tick)))
    } matching: {
      mentions("no element of the stack has the id #3")($0)
    }
    await withExpectedFailure {
      await station.pour(.path(.popFrom(id: 3)))
    } matching: {
      mentions("no element of the stack has the id #3")($0)
    }
    await station.finish()
  }

  @Test func anElementIsPresentedInItsReductionsAndEffects() async {
    let station = station(TestClock())
    await station.pour(.open("a")) { $0.path.append(SheetEditor.State(text: "a")) }
    await station.pour(.path(.element(id: 0, action: .checkPresentedInEffect)))
    await station.receive(.path(.element(id: 0, action: .presentedInEffect(true)))) {
      $0.path[id: 0]?.isPresented = true
    }
    await station.finish()
    // Reduced outside a Station, an element is presented too, and nothing is left bound after.
    var state = EditorStack.State(path: [SheetEditor.State(text: "b")])
    _ = EditorStack().reduce(into: &state, action: .path(.element(id: 0, action: .checkPresented)))
    #expect(state.path[id: 0]?.isPresented == true)
    @Dependency(\.isPresented) var isPresented
    #expect(!isPresented)
  }

  @Test func anElementPushedBelowTheTopIDIsFoundByItsID() async {
    let station = station(TestClock())
    await station.pour(.path(.push(id: 5, state: SheetEditor.State(text: "five")))) {
      $0.path.push(SheetEditor.State(text: "five"), id: 5)
    }
    await station.pour(.path(.push(id: 2, state: SheetEditor.State(text: "two")))) {
      $0.path.push(SheetEditor.State(text: "two"), id: 2)
    }
    await station.pour(.path(.element(id: 2, action: .tick))) { $0.path[id: 2]?.text = "two." }
    await station.pour(.path(.element(id: 5, action: .tick))) { $0.path[id: 5]?.text = "five." }
    await station.pour(.path(.popFrom(id: 5))) { $0.path.removeAll() }
    await station.pour(.open("next")) { $0.path.append(SheetEditor.State(text: "next")) }
    #expect(station.state.path.ids == [6])
    await station.finish()
  }

  /// Issue 41: ids are unique over a Station's life. A new stack assigned in a reduction numbers
  /// its element after every id the Station gave (#2, not #0), so the effects of #0 and #1 end
  /// with them and never drive the new screen (they did when ids restarted at 0).
  @Test func replacingTheStackCancelsTheEffectsOfTheElementsNotOnTheNewOne() async {
    let clock = TestClock()
    let station = station(clock)
    await station.pour(.open("a")) { $0.path.append(SheetEditor.State(text: "a")) }
    await station.pour(.open("b")) { $0.path.append(SheetEditor.State(text: "b")) }
    await station.pour(.path(.element(id: 0, action: .startTicking)))
    await station.pour(.path(.element(id: 1, action: .startTicking)))
    await station.pour(.reset("new")) {
      $0.path = StackState()
      $0.path[id: 2] = SheetEditor.State(text: "new")
    }
    await clock.advance(by: .seconds(3))
    await station.pour(.path(.element(id: 2, action: .startTicking)))
    await clock.advance(by: .seconds(1))
    await station.receive(.path(.element(id: 2, action: .tick))) { $0.path[id: 2]?.text = "new." }
    await station.finish()
  }

  /// A fresh Station starts its ids from 0 again: the same pushes give the same ids in every test.
  @Test func eachStationNumbersFromZero() async {
    for _ in 0..<2 {
      let station = station(TestClock())
      await station.pour(.reset("new")) { $0.path[id: 0] = SheetEditor.State(text: "new") }
      await station.pour(.open("a")) { $0.path[id: 1] = SheetEditor.State(text: "a") }
      await station.finish()
    }
  }

  /// `[id:]` set under an id not on the stack pushes with that id, as TCA's does; setting `nil`
  /// under an absent id changes nothing.
  @Test func settingAnAbsentIDPushes() {
    var path = StackState<Int>()
    path[id: 4] = 40
    path[id: 7] = nil
    #expect(path.ids == [4])
    path[id: 9]? = 90
    #expect(path.ids == [4])
    #expect(path.append(1) == 5)
  }
}

/// A page whose timer ticks every second until it leaves: issue 50's replaced stack.
struct TickingPage: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Equatable, Sendable { case startTimer, tick }

  @Dependency(\.clock) var clock

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
        state.count += 1
        return .none
      }
    }
  }
}

/// A stack of ticking pages that a `.replace` assigns anew.
struct TickingPages: Dripper {
  struct State: Equatable, Sendable { var path = StackState<TickingPage.State>() }
  enum Action: Equatable, Sendable {
    case replace
    case path(StackAction<TickingPage.State, TickingPage.Action>)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      if case .replace = action { state.path = StackState([TickingPage.State(count: 100)]) }
      return .none
    }
    .forEach(\.path, action: .path) { TickingPage() }
  }
}

extension CasePath<TickingPages.Action, StackAction<TickingPage.State, TickingPage.Action>> {
  static var path: Self { Self(TickingPages.Action.path) { if case .path(let a) = $0 { a } else { nil } } }
}

@Suite struct ReplacedStackTests {
  /// Issue 50: the element of the initial state took #0 outside any reduction, so the new stack's
  /// element, made in a reduction, took #0 too; the old element's timer went on ticking into it.
  /// A stack assigned whole is new: every element of the old one is gone, whatever the ids.
  @Test func anElementOfAReplacedStackStopsEvenWhenTheNewOneReusesItsID() async {
    let clock = TestClock()
    let station = TestStation(initialState: TickingPages.State(path: [TickingPage.State()])) {
      TickingPages()
    } withDependencies: {
      $0.clock = clock
    }
    await station.pour(.path(.element(id: 0, action: .startTimer)))
    await clock.advance(by: .seconds(1))
    await station.receive(.path(.element(id: 0, action: .tick))) { $0.path[id: 0]?.count = 1 }
    await station.pour(.replace) { $0.path = StackState([TickingPage.State(count: 100)]) }
    await clock.advance(by: .seconds(2))
    await station.finish()
  }
}
