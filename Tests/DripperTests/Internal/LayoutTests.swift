import Synchronization
import Testing

@testable import Dripper

/// Where the fields that one thread writes sit against those another thread works on.
///
/// Each pour writes the mailbox's lock and count and retains the handler (its first line); each
/// reduction writes the handler's state, batch and counters and reads `StatePublishers.groupCount`.
/// `ContentionGap`s keep the two sides 128 bytes apart, which holds only if Swift lays the stored
/// properties out in the order they are declared: it does, but does not promise to, so these
/// tests read the addresses. The benchmark's layout rows measure what a lost gap costs.
@Suite struct LayoutTests {
  @Test func theHandlersReductionFieldsSitBetweenItsGapsFarFromItsHeader() async {
    let station = Station(initialState: 0) {
      Drip<Int, Int> { state, action in
        state += action
        return .none
      }
    }
    guard case .root(let handler) = station.core else {
      Issue.record("a Station made from a dripper has a handler")
      return
    }
    let base = address(of: handler)
    let (gap, trailingGap, fields) = await reductionLayout(of: handler)
    for (name, field) in fields {
      #expect(field.start >= gap + gapSize, "\(name) is within 128 bytes of the fields before it")
      #expect(field.end <= trailingGap, "\(name) is not before the trailing gap")
      #expect(field.start >= base + gapSize, "\(name) shares a line with the header pours retain")
    }
  }

  @Test func theMailboxKeepsWhatPoursWriteBetweenItsGaps() {
    let mailbox = Mailbox<Int>()
    let leading = address(of: mailbox.leadingGap)
    let trailing = address(of: mailbox.trailingGap)
    let lock = address(of: mailbox.state)
    let poured = address(of: mailbox.poured)
    #expect(lock >= leading + gapSize)
    #expect(poured >= leading + gapSize)
    #expect(lock + UInt(MemoryLayout<Lock<MailboxState<Int>>>.size) <= trailing)
    #expect(poured + UInt(MemoryLayout<Atomic<PourNumber>>.size) <= trailing)
  }

  @Test func thePublishersCountEndsBeforeAGap() {
    let publishers = StatePublishers<Int>()
    let count = address(of: publishers.groupCount)
    #expect(count + UInt(MemoryLayout<Atomic<Int>>.size) <= address(of: publishers.trailingGap))
  }
}

private let gapSize = UInt(MemoryLayout<ContentionGap>.size)

/// The addresses of the handler's gaps, and the start and end of each field that reductions write.
private func reductionLayout<State, Action>(
  of handler: isolated StateHandler<State, Action>
) -> (gap: UInt, trailingGap: UInt, fields: [(String, (start: UInt, end: UInt))]) {
  func span<T>(_ pointer: UnsafeMutablePointer<T>) -> (start: UInt, end: UInt) {
    let start = UInt(bitPattern: pointer)
    return (start, start + UInt(MemoryLayout<T>.size))
  }
  let taken = address(of: handler.taken)
  let fields = [
    ("currentState", withUnsafeMutablePointer(to: &handler.currentState, span)),
    ("batch", withUnsafeMutablePointer(to: &handler.batch, span)),
    ("followUps", withUnsafeMutablePointer(to: &handler.followUps, span)),
    ("taken", (taken, taken + UInt(MemoryLayout<Atomic<UInt64>>.size))),
  ]
  return (address(of: handler.gap), address(of: handler.trailingGap), fields)
}

/// The address of a value that cannot be copied: where it is stored, since a borrow of it cannot
/// be a copy.
private func address<T: ~Copyable>(of value: borrowing T) -> UInt {
  withUnsafePointer(to: value) { UInt(bitPattern: $0) }
}

private func address(of object: AnyObject) -> UInt {
  UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}
