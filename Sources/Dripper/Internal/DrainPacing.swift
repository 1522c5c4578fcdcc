/// When a Station's drain task takes a batch from the mailbox: a pure decision from two looks at
/// the mailbox's counters, a ``interval`` apart.
///
/// The drain task reduces what nobody awaits. Callers that await their pours drain the mailbox
/// themselves, so the task lingers rather than ending after each batch: the next pours then need
/// no task and wake no thread. At each look it compares the number of actions poured and taken
/// with its last look:
///
/// - Nothing is waiting: if nothing happened since the last look either, the task ends (``end``);
///   otherwise it keeps lingering.
/// - Actions are waiting, and someone else took some since the last look (an awaiting caller
///   drains): it leaves them to that caller, for now.
/// - Actions are waiting and nobody took any: it drains them, unless they are arriving in a burst
///   (``burst`` or more since the last look) and fewer than ``batchThreshold`` wait, in which case
///   it lets the batch grow one more interval. A burst that stops is drained at the next look, so
///   no action waits for a later pour.
///
/// The counters only grow: the poured count is stored under the mailbox's lock.
struct DrainPacing {
  /// The counters at one look.
  struct Look: Equatable, Sendable {
    /// The sequence number of the last action poured.
    var poured: UInt64
    /// The sequence number of the last action taken from the mailbox.
    var taken: UInt64
  }

  enum Decision: Equatable, Sendable {
    /// Take a batch now.
    case drain
    /// Look again after ``interval``.
    case wait
    /// The mailbox has been idle since the last look: end, if it is still empty.
    case end
  }

  /// How long the drain task waits between looks at a busy mailbox.
  static var interval: Duration { .microseconds(20) }

  /// How many pours between two looks make a burst, which the drain task lets pile up.
  static var burst: UInt64 { 64 }

  /// How many actions of a burst pile up in the mailbox before the drain task takes them.
  static var batchThreshold: UInt64 { 1_024 }

  static func decide(previous: Look?, now: Look) -> Decision {
    guard now.taken < now.poured else {
      return previous == now ? .end : .wait
    }
    guard let previous else { return .drain }
    if now.taken != previous.taken { return .wait }  // A caller drains: leave it to them.
    let arriving = now.poured &- previous.poured
    let waiting = now.poured - now.taken
    return arriving >= burst && waiting < batchThreshold ? .wait : .drain
  }
}
