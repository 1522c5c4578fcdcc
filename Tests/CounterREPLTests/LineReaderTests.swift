import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

@Suite struct LineReaderTests {
  /// Before, standard input was read ahead into an unbounded stream: `yes + | CounterREPL` grew
  /// by megabytes a second. The reader now stays at most `capacity` lines ahead.
  @Test func theReaderStaysAFewLinesAheadOfTheConsumer() async {
    let total = 2_000
    let capacity = 4
    // (lines read, lines consumed, the largest lead seen when a line was read)
    // The package's Lock, which ThreadSanitizer sees (the standard library's Mutex it does not).
    let counts = Lock((read: 0, consumed: 0, lead: 0))
    let reader = LineReader(capacity: capacity) {
      counts.withLock { counts -> String? in
        guard counts.read < total else { return nil }
        counts.read += 1
        counts.lead = max(counts.lead, counts.read - counts.consumed)
        return "\(counts.read)"
      }
    }
    var received: [String] = []
    for await line in reader {
      received.append(line)
      counts.withLock { $0.consumed += 1 }
    }
    #expect(received == (1...total).map { "\($0)" })
    // One more than the capacity: a line can be taken before the consumer counts it.
    #expect(counts.withLock { $0.lead } <= capacity + 1)
  }

  @Test func emptyInputEndsAtOnce() async {
    var iterator = LineReader { nil }.makeAsyncIterator()
    let first = await iterator.next()
    let second = await iterator.next()
    #expect(first == nil && second == nil)
  }
}
