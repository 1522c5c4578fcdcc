/// When a Station's drain task takes a batch from the mailbox: a pure decision from two looks at
/// the mailbox's counters, at least ``interval`` apart.
///
/// The drain task reduces what nobody awaits. Callers that await their pours drain the mailbox
/// themselves, so the task lingers rather than ending after each batch: the next pours then need
/// no task and wake no thread. At each look it compares the number of actions poured and taken
/// with its last look:
///
/// - Nothing is waiting: if nothing happened since the last look either, the task ends (``end``);
///   otherwise it keeps lingering.
/// - Someone else took actions since the last look (callers awaiting their pours drain the
///   mailbox): it leaves what waits to them, and looks half as often as before (``backOff``), down
///   to one look every ``longestInterval``. A Station driven by awaiting callers then costs a
///   timer every few hundred microseconds, not every ``interval``; a pour nobody awaits among
///   theirs waits at most that long, or until the next awaiting caller drains it.
/// - Actions are waiting and nobody took any: it drains them, unless they are arriving in a burst
///   (``burst`` or more since the last look) and fewer than ``batchThreshold`` wait, in which case
///   it lets the batch grow one more interval. A burst that stops is drained at the next look, so
///   no action waits for a later pour.
///
/// The counters only grow: the poured count is stored under the mailbox's lock.
///
/// Why a timer and not an event-driven wake-up: two were measured against it, switched in
/// for the measurement only (`dripper-bench --filter core` and `--filter effects` twice each,
/// `--filter producers` once). A task that parks on a continuation when the mailbox is empty,
/// resumed by the pour that finds it parked, made synchronous pours 1.4-1.65x slower (45-50 ns
/// against 30-33, from one task or one OS thread) and awaited pours 1.57x (360 ns against 230):
/// each resume is a job enqueued, often a thread woken, and the batches stay small. A task that
/// ends as soon as the mailbox is empty, so that the next pour spawns another, cost 1.35x and
/// 1.6x. With 2 to 64 OS threads pouring at once, no variant was ahead in every row (each within
/// 0.9-1.5x of the timer's figure), and the effect round trip was slower with either (3.9-5.0 µs
/// against 2.8-3.4).
/// The timer runs only while the Station is busy and ends after one idle look.
///
/// A value keeps the last look and the interval until the next one; ``next(_:)`` takes a look and
/// returns what to do.
struct DrainPacing {
  /// The counters at one look.
  struct Look: Equatable, Sendable {
    /// The number of the last pour.
    var poured: PourNumber
    /// The number of the last pour taken from the mailbox.
    var taken: PourNumber
  }

  enum Decision: Equatable, Sendable {
    /// Take a batch now.
    case drain
    /// Look again after ``interval``.
    case wait
    /// Callers are taking the actions: look again after twice the last interval, at most
    /// ``longestInterval``.
    case backOff
    /// The mailbox has been idle since the last look: end, if it is still empty.
    case end
  }

  /// How long the drain task waits between looks at a mailbox it drains.
  static var interval: Duration { .microseconds(20) }

  /// The longest wait between looks, while callers drain the mailbox.
  static var longestInterval: Duration { .microseconds(640) }

  /// The last look, `nil` before the first.
  private(set) var previous: Look?
  /// How long to wait before the next look.
  private(set) var wait = DrainPacing.interval

  init() {}

  /// Decides what to do at a look that sees `now`, and paces the next look.
  mutating func next(_ now: Look) -> Decision {
    let decision = Self.decide(previous: previous, now: now)
    wait = decision == .backOff ? min(wait * 2, Self.longestInterval) : Self.interval
    return decision
  }

  /// Records the counters after acting on a decision: what the next look compares with.
  mutating func looked(_ now: Look) {
    previous = now
  }

  /// How many pours between two looks make a burst, which the drain task lets pile up.
  static var burst: UInt64 { 64 }

  /// How many actions of a burst pile up in the mailbox before the drain task takes them.
  static var batchThreshold: UInt64 { 1_024 }

  static func decide(previous: Look?, now: Look) -> Decision {
    let othersTook = previous.map { now.taken != $0.taken } ?? false
    guard now.taken < now.poured else {
      if previous == now { return .end }
      return othersTook ? .backOff : .wait
    }
    guard let previous else { return .drain }
    if othersTook { return .backOff }  // A caller drains: leave it to them.
    let arriving = now.poured &- previous.poured
    let waiting = now.poured - now.taken
    return arriving >= burst && waiting < batchThreshold ? .wait : .drain
  }
}
