import Dripper
import DripperTesting
import Testing

// TCA's effect case studies (Examples/CaseStudies: Effects-Basics, Effects-Cancellation,
// Refreshable, Timers), written again as Dripper features, with their tests ported assertion for
// assertion. Each ended "still running" or raced its clock in some runs before issue 40.

/// A number fact client, as the case studies' `FactClient`.
struct FactClient: Sendable {
  var fetch: @Sendable (Int) async throws -> String
}

enum FactClientKey: DependencyKey {
  static let liveValue = FactClient { "\($0) is a number." }
  static let testValue = FactClient(fetch: unimplemented("FactClient.fetch", placeholder: ""))
}

extension DependencyValues {
  var factClient: FactClient {
    get { self[FactClientKey.self] }
    set { self[FactClientKey.self] = newValue }
  }
}

struct FactError: Error, Equatable {}

/// Effects-Basics: a decrement that comes back up after a second, unless the count moves first; a
/// fact request.
struct EffectsBasics: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var isNumberFactRequestInFlight = false
    var numberFact: String?
  }
  enum Action: Equatable, Sendable {
    case decrementButtonTapped
    case decrementDelayResponse
    case incrementButtonTapped
    case numberFactButtonTapped
    case numberFactResponse(String?)
  }
  enum DelayID: Hashable, Sendable { case delay }

  @Dependency(\.clock) var clock
  @Dependency(\.factClient) var factClient

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .decrementButtonTapped:
        state.count -= 1
        state.numberFact = nil
        guard state.count < 0 else { return .none }
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.decrementDelayResponse)
        }
        .cancellable(id: DelayID.delay)
      case .decrementDelayResponse:
        if state.count < 0 { state.count += 1 }
        return .none
      case .incrementButtonTapped:
        state.count += 1
        state.numberFact = nil
        return state.count >= 0 ? .cancel(id: DelayID.delay) : .none
      case .numberFactButtonTapped:
        state.isNumberFactRequestInFlight = true
        state.numberFact = nil
        return .run { [count = state.count] pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.numberFactResponse(try? await factClient.fetch(count)))
        }
      case .numberFactResponse(let fact):
        state.isNumberFactRequestInFlight = false
        state.numberFact = fact
        return .none
      }
    }
  }
}

/// Effects-Cancellation: a fact request that a cancel button, or a change of the number, cancels.
struct EffectsCancellation: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var currentFact: String?
    var isFactRequestInFlight = false
  }
  enum Action: Equatable, Sendable {
    case cancelButtonTapped
    case stepperChanged(Int)
    case factButtonTapped
    case factResponse(String?)
  }
  enum FactID: Hashable, Sendable { case fact }

  @Dependency(\.factClient) var factClient

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .cancelButtonTapped:
        state.isFactRequestInFlight = false
        return .cancel(id: FactID.fact)
      case .stepperChanged(let value):
        state.count = value
        state.currentFact = nil
        state.isFactRequestInFlight = false
        return .cancel(id: FactID.fact)
      case .factButtonTapped:
        state.currentFact = nil
        state.isFactRequestInFlight = true
        return .run { [count = state.count] pour in
          await pour(.factResponse(try? await factClient.fetch(count)))
        }
        .cancellable(id: FactID.fact)
      case .factResponse(let fact):
        state.isFactRequestInFlight = false
        state.currentFact = fact
        return .none
      }
    }
  }
}

/// Refreshable: a fact loaded when the list is pulled, which a cancel button cancels.
struct Refreshable: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var fact: String?
  }
  enum Action: Equatable, Sendable {
    case cancelButtonTapped
    case incrementButtonTapped
    case factResponse(String?)
    case refresh
  }
  enum FactID: Hashable, Sendable { case fact }

  @Dependency(\.factClient) var factClient
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .cancelButtonTapped:
        return .cancel(id: FactID.fact)
      case .incrementButtonTapped:
        state.count += 1
        return .none
      case .factResponse(let fact):
        state.fact = fact
        return .none
      case .refresh:
        state.fact = nil
        return .run { [count = state.count] pour in
          try await clock.sleep(for: .milliseconds(100))
          await pour(.factResponse(try? await factClient.fetch(count)))
        }
        .cancellable(id: FactID.fact)
      }
    }
  }
}

/// Timers: a timer that ticks every second while it is on.
struct Timers: Dripper {
  struct State: Equatable, Sendable {
    var isTimerActive = false
    var secondsElapsed = 0
  }
  enum Action: Equatable, Sendable {
    case timerTicked
    case toggleTimerButtonTapped
  }
  enum TimerID: Hashable, Sendable { case timer }

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .timerTicked:
        state.secondsElapsed += 1
        return .none
      case .toggleTimerButtonTapped:
        state.isTimerActive.toggle()
        guard state.isTimerActive else { return .cancel(id: TimerID.timer) }
        return .run { pour in
          while true {
            try await clock.sleep(for: .seconds(1))
            await pour(.timerTicked)
          }
        }
        .cancellable(id: TimerID.timer, cancelInFlight: true)
      }
    }
  }
}

@Suite struct EffectsBasicsTests {
  @Test func countDown() async {
    let store = TestStation(initialState: EffectsBasics.State()) {
      EffectsBasics()
    } withDependencies: {
      $0.clock = ImmediateClock()
    }
    await store.pour(.incrementButtonTapped) { $0.count = 1 }
    await store.pour(.decrementButtonTapped) { $0.count = 0 }
  }

  @Test func numberFact() async {
    let store = TestStation(initialState: EffectsBasics.State()) {
      EffectsBasics()
    } withDependencies: {
      $0.factClient.fetch = { "\($0) is a good number Brent" }
      $0.clock = ImmediateClock()
    }
    await store.pour(.incrementButtonTapped) { $0.count = 1 }
    await store.pour(.numberFactButtonTapped) { $0.isNumberFactRequestInFlight = true }
    await store.receive(.numberFactResponse("1 is a good number Brent")) {
      $0.isNumberFactRequestInFlight = false
      $0.numberFact = "1 is a good number Brent"
    }
  }

  @Test func decrement() async {
    let store = TestStation(initialState: EffectsBasics.State()) {
      EffectsBasics()
    } withDependencies: {
      $0.clock = ImmediateClock()
    }
    await store.pour(.decrementButtonTapped) { $0.count = -1 }
    await store.receive(.decrementDelayResponse) { $0.count = 0 }
  }

  @Test func decrementCancellation() async {
    let store = TestStation(initialState: EffectsBasics.State()) {
      EffectsBasics()
    } withDependencies: {
      $0.clock = TestClock()
    }
    await store.pour(.decrementButtonTapped) { $0.count = -1 }
    await store.pour(.incrementButtonTapped) { $0.count = 0 }
  }
}

@Suite struct EffectsCancellationTests {
  @Test func successfulRequest() async {
    let store = TestStation(initialState: EffectsCancellation.State()) {
      EffectsCancellation()
    } withDependencies: {
      $0.factClient.fetch = { "\($0) is a good number Brent" }
    }
    await store.pour(.stepperChanged(1)) { $0.count = 1 }
    await store.pour(.stepperChanged(0)) { $0.count = 0 }
    await store.pour(.factButtonTapped) { $0.isFactRequestInFlight = true }
    await store.receive(.factResponse("0 is a good number Brent")) {
      $0.currentFact = "0 is a good number Brent"
      $0.isFactRequestInFlight = false
    }
  }

  @Test func failedRequest() async {
    let store = TestStation(initialState: EffectsCancellation.State()) {
      EffectsCancellation()
    } withDependencies: {
      $0.factClient.fetch = { _ in throw FactError() }
    }
    await store.pour(.factButtonTapped) { $0.isFactRequestInFlight = true }
    await store.receive(.factResponse(nil)) { $0.isFactRequestInFlight = false }
  }

  @Test func cancelButtonCancelsRequest() async {
    let store = TestStation(initialState: EffectsCancellation.State()) {
      EffectsCancellation()
    } withDependencies: {
      $0.factClient.fetch = { _ in try await Task.never() }
    }
    await store.pour(.factButtonTapped) { $0.isFactRequestInFlight = true }
    await store.pour(.cancelButtonTapped) { $0.isFactRequestInFlight = false }
  }

  @Test func plusMinusButtonsCancelRequest() async {
    let store = TestStation(initialState: EffectsCancellation.State()) {
      EffectsCancellation()
    } withDependencies: {
      $0.factClient.fetch = { _ in try await Task.never() }
    }
    await store.pour(.factButtonTapped) { $0.isFactRequestInFlight = true }
    await store.pour(.stepperChanged(1)) {
      $0.count = 1
      $0.isFactRequestInFlight = false
    }
  }
}

@Suite struct RefreshableTests {
  @Test func happyPath() async {
    let store = TestStation(initialState: Refreshable.State()) {
      Refreshable()
    } withDependencies: {
      $0.factClient.fetch = { "\($0) is a good number." }
      $0.clock = ImmediateClock()
    }
    await store.pour(.incrementButtonTapped) { $0.count = 1 }
    await store.pour(.refresh)
    await store.receive(.factResponse("1 is a good number.")) { $0.fact = "1 is a good number." }
  }

  @Test func unhappyPath() async {
    let store = TestStation(initialState: Refreshable.State()) {
      Refreshable()
    } withDependencies: {
      $0.factClient.fetch = { _ in throw FactError() }
      $0.clock = ImmediateClock()
    }
    await store.pour(.incrementButtonTapped) { $0.count = 1 }
    await store.pour(.refresh)
    await store.receive(.factResponse(nil))
  }

  @Test func cancellation() async {
    let store = TestStation(initialState: Refreshable.State()) {
      Refreshable()
    } withDependencies: {
      $0.factClient.fetch = {
        // TCA's test waits a second of real time; an hour, so that no loaded machine (the
        // sanitizers') lets the answer come before the cancel.
        try await Task.sleep(for: .seconds(3_600))
        return "\($0) is a good number."
      }
      $0.clock = ImmediateClock()
    }
    await store.pour(.incrementButtonTapped) { $0.count = 1 }
    await store.pour(.refresh)
    await store.pour(.cancelButtonTapped)
  }
}

@Suite struct TimersTests {
  @Test func start() async {
    let clock = TestClock()
    let store = TestStation(initialState: Timers.State()) {
      Timers()
    } withDependencies: {
      $0.clock = clock
    }
    await store.pour(.toggleTimerButtonTapped) { $0.isTimerActive = true }
    await clock.advance(by: .seconds(1))
    await store.receive(.timerTicked) { $0.secondsElapsed = 1 }
    await clock.advance(by: .seconds(5))
    for second in 2...6 {
      await store.receive(.timerTicked) { $0.secondsElapsed = second }
    }
    await store.pour(.toggleTimerButtonTapped) { $0.isTimerActive = false }
  }
}
