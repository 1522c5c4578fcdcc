public import Dripper

/// A feature whose state after any number of actions is known without replaying them: the
/// journal tests compare what a recovery gives with it.
public struct Ledger: Dripper {
  /// A count and a sum.
  public struct State: Equatable, Sendable {
    /// How many actions were reduced.
    public var count = 0
    /// The sum of their amounts.
    public var total: Int64 = 0

    /// A state with `count` actions summing to `total`.
    public init(count: Int = 0, total: Int64 = 0) {
      self.count = count
      self.total = total
    }

    /// The state after the first `count` actions of a run (see ``Ledger/amount(_:)``).
    public static func after(_ count: Int) -> State {
      State(count: count, total: (0..<count).reduce(0) { $0 + Ledger.amount($1 + 1) })
    }
  }

  /// What the ledger does.
  public enum Action: Equatable, Sendable {
    /// Adds an amount.
    case add(Int64)
  }

  /// The ledger.
  public init() {}

  /// Counts and sums.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let amount):
        state.count += 1
        state.total += amount
      }
      return .none
    }
  }

  /// The amount of the `sequence`th action of a run.
  public static func amount(_ sequence: Int) -> Int64 { Int64(sequence % 7 + 1) }

  /// The ledger's durable journal in `directory`.
  public static func journal(
    at directory: String, durability: JournalDurability, snapshotEvery: Int
  ) -> DurableJournal<State, Action> {
    DurableJournal(
      directory: directory, durability: durability, snapshotEvery: snapshotEvery, hashing: .dump,
      encodeAction: { action in
        switch action {
        case .add(let amount): "add \(amount)"
        }
      },
      decodeAction: { text in
        guard text.hasPrefix("add "), let amount = Int64(text.dropFirst(4)) else {
          throw LedgerError(message: "not a ledger action: \(text)")
        }
        return .add(amount)
      },
      encodeState: { "\($0.count) \($0.total)" },
      decodeState: { text in
        let fields = text.split(separator: " ")
        guard fields.count == 2, let count = Int(fields[0]), let total = Int64(fields[1]) else {
          throw LedgerError(message: "not a ledger state: \(text)")
        }
        return State(count: count, total: total)
      })
  }
}

/// A ledger's text that does not decode.
public struct LedgerError: Error, CustomStringConvertible {
  /// What was wrong.
  public let message: String
  /// The message.
  public var description: String { message }
}
