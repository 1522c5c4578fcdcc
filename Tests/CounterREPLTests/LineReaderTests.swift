import Dripper
import REPLSupport
import Testing

@testable import CounterREPL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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

  /// A line is kept up to the limit and the rest skipped: memory stays the chunk and one line,
  /// whatever comes without a newline (1 GiB grew the REPL to 2.8 GB when lines were read whole).
  @Test func aLineLongerThanTheLimitIsCutAndTheNextReadWhole() async {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    let writer = ends[1]
    let writing = Task.detached {
      let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
      for _ in 0..<32 { chunk.withUnsafeBytes { _ = write(writer, $0.baseAddress, $0.count) } }
      let rest = Array("\r\nnext\r\nlast".utf8)
      rest.withUnsafeBytes { _ = write(writer, $0.baseAddress, $0.count) }
      close(writer)
    }
    var lines: [String] = []
    for await line in StandardInput.lines(from: ends[0], limit: 1_000) { lines.append(line) }
    await writing.value
    close(ends[0])
    #expect(lines == [String(repeating: "a", count: 1_000), "next", "last"])
  }
}
