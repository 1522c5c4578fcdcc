import Dripper
import Foundation

/// A wallet: a balance in cents, holds that expire, and its last entries.
///
/// Every request is answered (``Reply``): the service turns an accepted one into a 200 and a
/// refused one into a 409. A hold's expiry is a reminder the host keeps, so it expires even if the
/// service was down at its deadline. The actions carry durations, not deadlines: a retried request
/// is the same action, which the host recognizes by its idempotency key.
public struct Wallet: Dripper {
  /// A wallet's state.
  public struct State: Equatable, Sendable, Codable {
    /// The cents in the wallet, held ones included.
    public var balance = 0
    /// The holds not yet expired, by number.
    public var holds: [Int: Int] = [:]
    /// How many deposits were applied: what the crash checks count.
    public var deposits = 0
    /// The last entries, latest last, at most ``entriesKept``.
    public var entries: [Entry] = []
    /// The number of the next hold.
    public var nextHold = 1

    /// The cents that can be withdrawn or held: the balance less the holds.
    public var available: Int { balance - holds.values.reduce(0, +) }

    /// An empty wallet.
    public init() {}
  }

  /// One change to a wallet.
  public struct Entry: Equatable, Sendable, Codable {
    /// `deposit`, `withdraw`, `hold` or `release`.
    public var kind: String
    /// The cents it moved.
    public var amount: Int

    /// An entry of `kind` for `amount` cents.
    public init(kind: String, amount: Int) {
      self.kind = kind
      self.amount = amount
    }
  }

  /// A request to a wallet, or a hold's expiry.
  public enum Action: Equatable, Sendable, Codable, ReplyingAction {
    /// What a request is answered with.
    public typealias Reply = WalletReply
    /// Adds `cents`.
    case deposit(cents: Int)
    /// Takes `cents`, if available.
    case withdraw(cents: Int)
    /// Holds `cents`, if available, for `seconds`.
    case hold(cents: Int, seconds: Int)
    /// Hold `number`'s time is up.
    case expire(hold: Int)
  }

  /// How many entries a wallet keeps.
  public static let entriesKept = 10

  @Dependency(\.date) var date

  /// A wallet.
  public init() {}

  /// The wallet's rules.
  public var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .deposit(let cents):
        state.balance += cents
        state.deposits += 1
        state.record("deposit", cents)
        return .reply(.accepted(state.summary))
      case .withdraw(let cents):
        guard cents <= state.available else {
          return .reply(.refused("would overdraw: \(state.available) available"))
        }
        state.balance -= cents
        state.record("withdraw", cents)
        return .reply(.accepted(state.summary))
      case .hold(let cents, let seconds):
        guard cents <= state.available else {
          return .reply(.refused("would overdraw: \(state.available) available"))
        }
        let number = state.nextHold
        state.nextHold += 1
        state.holds[number] = cents
        state.record("hold", cents)
        return .merge(
          .reply(.accepted(state.summary)),
          .remind(
            .expire(hold: number), at: date.now.addingTimeInterval(Double(seconds)), id: "hold-\(number)"))
      case .expire(let number):
        guard let cents = state.holds.removeValue(forKey: number) else { return .none }
        state.record("release", cents)
        return .none
      }
    }
  }
}

/// What a wallet answers a request with.
public enum WalletReply: Equatable, Sendable, Codable {
  /// Applied: the wallet after it.
  case accepted(WalletSummary)
  /// Not applied, with the reason.
  case refused(String)
}

/// A wallet's balance and what is available of it.
public struct WalletSummary: Equatable, Sendable, Codable {
  /// The cents in the wallet.
  public var balance: Int
  /// The cents not held.
  public var available: Int

  /// A summary of `balance` cents, `available` of them not held.
  public init(balance: Int, available: Int) {
    self.balance = balance
    self.available = available
  }
}

extension Wallet.State {
  /// The balance and what is available.
  public var summary: WalletSummary { WalletSummary(balance: balance, available: available) }

  mutating func record(_ kind: String, _ amount: Int) {
    entries.append(Wallet.Entry(kind: kind, amount: amount))
    if entries.count > Wallet.entriesKept { entries.removeFirst(entries.count - Wallet.entriesKept) }
  }
}
