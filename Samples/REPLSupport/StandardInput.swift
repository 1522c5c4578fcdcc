import Dispatch

/// The lines of standard input, read on a thread of their own so that a blocking read never holds
/// a thread of the concurrency pool.
public enum StandardInput {
  /// Each line of standard input, without its newline; the stream ends at the end of input.
  public static func lines() -> AsyncStream<String> {
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    DispatchQueue(label: "REPLSupport.standardInput").async {
      while let line = readLine(strippingNewline: true) {
        continuation.yield(line)
      }
      continuation.finish()
    }
    return lines
  }
}
