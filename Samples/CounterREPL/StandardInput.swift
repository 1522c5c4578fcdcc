import Dispatch

/// The lines of standard input, read on a thread of their own so that a blocking read never holds
/// a thread of the concurrency pool.
enum StandardInput {
  static func lines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    DispatchQueue(label: "CounterREPL.standardInput").async {
      while let line = readLine(strippingNewline: true) {
        continuation.yield(line)
      }
      continuation.finish()
    }
    return lines
  }
}
