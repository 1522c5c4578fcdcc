import Dispatch
import Dripper
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The lines of standard input, read on a thread of their own so that a blocking read never holds
/// a thread of the concurrency pool.
public enum StandardInput {
  /// Each line of standard input, without its newline; the sequence ends at the end of input.
  ///
  /// The reader stays at most 64 lines ahead of the consumer: `yes + | CounterREPL` runs in
  /// constant memory, and a command file of any size is read as it is used.
  public static func lines() -> LineReader {
    lines(from: STDIN_FILENO)
  }

  /// The line an interactive Ctrl-D reads as, with `endOfInputAsLine`: a request to leave.
  public static let endOfInputLine = "\u{4}"

  /// The longest line kept, in bytes: the rest of a longer line is skipped, and what is kept is
  /// reported as too long by the command parser.
  public static let lineLimit = 64 * 1024

  /// Each line read from `descriptor`, read in chunks, in bounded memory: a line longer than `limit`
  /// bytes is cut there (before, 1 GiB without a newline grew the REPL to 2.8 GB).
  public static func lines(from descriptor: Int32, limit: Int = lineLimit) -> LineReader {
    let splitter = Mutex(LineSplitter(descriptor: descriptor, limit: limit))
    return LineReader { splitter.withLock { $0.next() } }
  }

  /// The lines a session reads: typed at `console`'s prompt when it is interactive, read as
  /// ``lines()`` otherwise.
  ///
  /// Interactive, the terminal is put in raw mode (no echo, no line editing of its own; Ctrl-C
  /// still signals) until the process exits, and the console edits the line key by key
  /// (``Console/keyPressed(_:)``): so it knows what is typed, and draws it again below a line that
  /// arrives meanwhile, where the terminal's own editing would leave it erased.
  ///
  /// With `endOfInputAsLine`, Ctrl-D at an empty line is the line ``endOfInputLine`` and reading
  /// goes on, so that a session may ask before it leaves (unsaved changes); otherwise it ends the
  /// lines.
  public static func lines(console: Console, endOfInputAsLine: Bool = false) -> LineReader {
    guard console.isInteractive, RawTerminal.enter() else { return lines() }
    return LineReader {
      var byte: UInt8 = 0
      while true {
        let count = read(STDIN_FILENO, &byte, 1)
        if count < 0, errno == EINTR { continue }
        guard count == 1 else { return nil }
        switch console.keyPressed(byte) {
        case .line(let line): return line
        case .endOfInput: return endOfInputAsLine ? endOfInputLine : nil
        case .changed, .unchanged: continue
        }
      }
    }
  }
}

/// Standard input's terminal in raw mode, restored when the process exits.
enum RawTerminal {
  /// The settings before raw mode, to restore.
  private static let saved = Mutex<termios?>(nil)

  /// Turns off the terminal's echo and line editing; returns whether it could.
  static func enter() -> Bool {
    var settings = termios()
    guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
    saved.withLock { $0 = settings }
    atexit { RawTerminal.restore() }
    var raw = settings
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    // One byte at a time, as soon as it comes (in canonical mode these slots hold other keys).
    withUnsafeMutableBytes(of: &raw.c_cc) { keys in
      keys[Int(VMIN)] = 1
      keys[Int(VTIME)] = 0
    }
    guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return false }  // keeping what was typed ahead
    handleSuspension(raw: raw)
    return true
  }

  /// Ctrl-Z gives the terminal back as it was before the process stops, and `fg` puts it in raw mode
  /// again (before, the shell was left in raw mode, and the REPL came back without it).
  private static func handleSuspension(raw: termios) {
    let queue = DispatchQueue(label: "REPLSupport.suspension")
    signal(SIGTSTP, SIG_IGN)
    let suspend = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: queue)
    // Each handler holds its source: it lives as long as the process.
    suspend.setEventHandler {
      _ = suspend
      restore()
      kill(getpid(), SIGSTOP)
    }
    suspend.resume()
    let resume = DispatchSource.makeSignalSource(signal: SIGCONT, queue: queue)
    resume.setEventHandler {
      _ = resume
      var settings = raw
      tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
    resume.resume()
  }

  /// Puts the terminal back as it was.
  static func restore() {
    guard var settings = saved.withLock({ $0 }) else { return }
    tcsetattr(STDIN_FILENO, TCSANOW, &settings)
  }
}

/// Lines read from a blocking source on a thread of its own, with backpressure: the thread reads
/// a line only while fewer than `capacity` wait to be consumed.
///
/// ```swift
/// for await line in StandardInput.lines() { handle(line) }
/// ```
public struct LineReader: AsyncSequence, Sendable {
  /// The element: one line.
  public typealias Element = String
  /// Reading lines does not fail: the end of input ends the sequence.
  public typealias Failure = Never

  private let buffer: LineBuffer

  /// Starts reading `source` (which returns `nil` at the end of input) on a thread of its own,
  /// at most `capacity` lines ahead of the consumer.
  public init(capacity: Int = 64, source: @escaping @Sendable () -> String?) {
    precondition(capacity > 0, "LineReader: the capacity must be at least 1")
    let buffer = LineBuffer(capacity: capacity)
    self.buffer = buffer
    DispatchQueue(label: "REPLSupport.LineReader").async {
      while true {
        buffer.waitForRoom()
        guard let line = source() else { break }
        buffer.put(line)
      }
      buffer.finish()
    }
  }

  /// An iterator over the lines.
  public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer) }

  /// Takes the lines one at a time, waiting for the reader when none is ready.
  public struct Iterator: AsyncIteratorProtocol {
    let buffer: LineBuffer

    /// The next line, or `nil` at the end of input.
    public mutating func next() async -> String? { await buffer.take() }
  }
}

/// The lines between the reading thread and the consumer: at most `capacity` of them, plus a
/// consumer waiting for the next.
///
/// A full buffer parks the reader until the consumer has taken half of it, so that the reader
/// wakes once per batch of lines, not once per line.
final class LineBuffer: Sendable {
  private struct State {
    var lines: [String] = []
    var head = 0
    var isFinished = false
    var readerIsParked = false
    var waiter: CheckedContinuation<String?, Never>?

    var count: Int { lines.count - head }
  }

  private let capacity: Int
  private let state = Lock(State())
  /// Signalled once to wake the parked reader.
  private let wake = DispatchSemaphore(value: 0)

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Blocks the reading thread while the buffer is full.
  func waitForRoom() {
    while state.withLock({ state in
      guard state.count >= capacity else { return false }
      state.readerIsParked = true
      return true
    }) {
      wake.wait()
    }
  }

  /// Hands `line` to the waiting consumer, or keeps it for the next `take()`.
  func put(_ line: String) {
    let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
      guard let waiter = state.waiter else {
        state.lines.append(line)
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: line)
  }

  /// Marks the end of input: a waiting consumer, and every later `take()` once the kept lines are
  /// taken, get `nil`.
  func finish() {
    let waiter = state.withLock { state in
      state.isFinished = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: nil)
  }

  /// The next line, waiting for the reader if none is kept; `nil` at the end of input.
  func take() async -> String? {
    await withCheckedContinuation { continuation in
      enum Outcome {
        case line(String, wakingReader: Bool)
        case end
        case waiting
      }
      let outcome = state.withLock { state -> Outcome in
        guard state.count > 0 else {
          if state.isFinished { return .end }
          state.waiter = continuation
          return .waiting
        }
        let line = state.lines[state.head]
        state.head += 1
        if state.head == state.lines.count {
          state.lines.removeAll(keepingCapacity: true)
          state.head = 0
        }
        let wakingReader = state.readerIsParked && state.count <= capacity / 2
        if wakingReader { state.readerIsParked = false }
        return .line(line, wakingReader: wakingReader)
      }
      switch outcome {
      case .line(let line, let wakingReader):
        if wakingReader { wake.signal() }
        continuation.resume(returning: line)
      case .end:
        continuation.resume(returning: nil)
      case .waiting:
        break
      }
    }
  }
}

/// Splits what a file descriptor gives into lines, a chunk at a time, keeping at most `limit` bytes
/// of a line: memory is the chunk and one line, whatever the input.
struct LineSplitter: Sendable {
  let descriptor: Int32
  let limit: Int
  /// What was read and not yet split, from `position`.
  private var data: [UInt8] = []
  private var position = 0
  /// The line so far, and whether bytes of it were dropped past the limit.
  private var line: [UInt8] = []
  private var hasBytes = false
  private var ended = false

  init(descriptor: Int32, limit: Int) {
    self.descriptor = descriptor
    self.limit = limit
  }

  /// The next line, without its newline (or `\r\n`); `nil` at the end of input.
  mutating func next() -> String? {
    while true {
      if let newline = data[position...].firstIndex(of: UInt8(ascii: "\n")) {
        keep(data[position..<newline])
        position = newline + 1
        return takeLine()
      }
      keep(data[position...])
      position = data.count
      if ended { return hasBytes ? takeLine() : nil }
      data.removeAll(keepingCapacity: true)
      position = 0
      var chunk = [UInt8](repeating: 0, count: 64 * 1024)
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      if count <= 0 {
        ended = true
        continue
      }
      data.append(contentsOf: chunk[0..<count])
    }
  }

  private mutating func keep(_ bytes: ArraySlice<UInt8>) {
    if !bytes.isEmpty { hasBytes = true }
    let room = limit - line.count
    if room > 0 { line.append(contentsOf: bytes.prefix(room)) }
  }

  private mutating func takeLine() -> String {
    defer {
      line.removeAll(keepingCapacity: line.capacity <= 4096)
      hasBytes = false
    }
    if line.last == UInt8(ascii: "\r") { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }
}
