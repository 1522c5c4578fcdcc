public import Dripper

/// A tally of amounts per key: the feature the distributed tests host.
public struct Tally: Dripper {
  /// The amounts added, and how many.
  public struct State: Equatable, Sendable, Codable {
    /// The sum of the amounts.
    public var total = 0
    /// How many were added.
    public var count = 0
    /// A tally.
    public init(total: Int = 0, count: Int = 0) {
      self.total = total
      self.count = count
    }
  }

  /// What a tally is poured.
  public enum Action: Equatable, Sendable, Codable {
    /// Adds an amount.
    case add(Int)
  }

  /// The feature.
  public init() {}

  /// Adds.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount):
        state.total += amount
        state.count += 1
      }
      return .none
    }
  }
}
