import Dripper

/// A token bucket that caps how many jobs start per second.
struct RateLimiter: Dripper {
  struct State: Equatable, Sendable {
    /// Starts allowed per second; `nil` for no limit.
    var startsPerSecond: Int?
    /// Starts allowed now.
    var tokens: Int
    /// Whether the refill timer runs.
    var isRunning = false

    init(startsPerSecond: Int?) {
      self.startsPerSecond = startsPerSecond
      self.tokens = startsPerSecond ?? 0
    }

    var allowsStart: Bool { startsPerSecond == nil || tokens > 0 }

    mutating func consume() {
      if startsPerSecond != nil { tokens -= 1 }
    }
  }

  enum Action: Equatable, Sendable {
    /// Work arrived: refill once a second while it lasts.
    case start
    case refill
    case stop
  }

  struct RefillID: Hashable, Sendable {}

  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .start:
        guard state.startsPerSecond != nil else { return .none }
        state.isRunning = true
        // A second start while the timer runs is dropped: one timer at a time.
        return .run { pour in
          while true {
            try await clock.sleep(for: .seconds(1))
            await pour(.refill)
          }
        }
        .cancellable(id: RefillID(), policy: .dropNew)
      case .refill:
        state.tokens = state.startsPerSecond ?? 0
        return .none
      case .stop:
        state.isRunning = false
        return .cancel(id: RefillID())
      }
    }
  }
}
