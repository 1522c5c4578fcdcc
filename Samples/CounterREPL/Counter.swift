import Dripper

/// The feature the REPL drives: a counter with two effects, a delayed random number and a slow,
/// cancellable computation.
///
/// The same counter's first three commands, without an action enum, as Verge's `commit` or bloc's
/// `Cubit` would write them: a `CommitStation` whose callers change the state with named closures,
/// reduced in order on the Station's actor like actions.
///
/// ```swift
/// let counter = CommitStation(initialState: Counter.State())
/// counter.commit("increase") { $0.count += 1 }
/// counter.commit("decrease") { $0.count -= 1 }
/// counter.emit(Counter.State())   // reset
/// ```
///
/// Commits suit a feature whose logic lives with its callers (a settings form). This one is a
/// `Dripper` with actions because its logic belongs to it: `set` clamps, `random` and `fact` start
/// effects that `cancel` stops, and its tests read as events (`.factTapped`, then
/// `.factComputed`) rather than anonymous closures.
struct Counter: Dripper {
  @Dependency(\.clock) var clock
  @Dependency(\.random) var random

  struct State: Equatable, Sendable {
    var count = 0
    /// Whether a random number is on its way.
    var isRandomPending = false
    /// The number a fact is being computed for.
    var factInProgress: Int?
    /// The last fact computed.
    var fact: String?
  }

  enum Action: Equatable, Sendable {
    case increase
    case decrease
    case set(Int)
    case reset
    case randomTapped
    case randomArrived(Int)
    case factTapped
    case factComputed(String)
    case cancelTapped
  }

  /// The ids of the two effects, which `cancel` cancels.
  enum CancelID: Hashable, Sendable {
    case random
    case fact
  }

  /// How long `random` takes to deliver its number.
  static let randomDelay = Duration.milliseconds(300)

  /// The largest value `set` accepts, either way; `+` and `-` stop there too.
  static let limit = 1_000_000_000

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .increase:
        state.count = min(state.count + 1, Self.limit)
        return .none

      case .decrease:
        state.count = max(state.count - 1, -Self.limit)
        return .none

      case .set(let value):
        state.count = value
        return .none

      case .reset:
        state = State()
        return .merge(.cancel(id: CancelID.random), .cancel(id: CancelID.fact))

      case .randomTapped:
        state.isRandomPending = true
        return .run { [clock, random] pour in
          try await clock.sleep(for: Self.randomDelay)
          await pour(.randomArrived(random.int(in: 1...100)))
        }
        .cancellable(id: CancelID.random, cancelInFlight: true)

      case .randomArrived(let value):
        state.isRandomPending = false
        state.count = value
        return .none

      case .factTapped:
        state.factInProgress = state.count
        state.fact = nil
        return .run { [count = state.count] pour in
          await pour(.factComputed(try await Fact.about(count)))
        }
        .cancellable(id: CancelID.fact, cancelInFlight: true)

      case .factComputed(let fact):
        state.factInProgress = nil
        state.fact = fact
        return .none

      case .cancelTapped:
        state.isRandomPending = false
        state.factInProgress = nil
        return .merge(.cancel(id: CancelID.random), .cancel(id: CancelID.fact))
      }
    }
  }
}
