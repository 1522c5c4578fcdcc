import Dispatch
import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Ctrl-C (SIGINT) as a stream of events, so that a REPL decides what it means instead of being
/// killed: cancel the work that runs, or clear the line, as a shell does.
public enum Interrupts {
  /// Each SIGINT the process receives from now on. The default action (ending the process) is
  /// off while the stream exists; call once per process.
  public static func stream() -> AsyncStream<Void> {
    let (interrupts, continuation) = AsyncStream.makeStream(of: Void.self)
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(
      signal: SIGINT, queue: DispatchQueue(label: "REPLSupport.interrupts"))
    // The handler holds the source: it lives as long as the process, as the signal's handling does.
    source.setEventHandler {
      // Signals that arrive before the handler runs are counted as one event: yield each.
      for _ in 0..<max(1, source.data) { continuation.yield() }
    }
    source.resume()
    return interrupts
  }
}

/// What a Ctrl-C means, given what the session is doing: the rule of a shell.
public enum InterruptMeaning: Equatable, Sendable {
  /// Work is running: cancel it and return to the prompt.
  case cancelWork
  /// At an idle prompt: drop the line being typed (the terminal has already) and prompt again.
  case clearLine
  /// A second Ctrl-C in a row at an idle prompt: leave, with status 130 (128 + SIGINT).
  case exit

  /// The meaning of a Ctrl-C when work is or is not running, after `previous` (the meaning of
  /// the Ctrl-C before it, if nothing else happened between them).
  public static func of(workIsRunning: Bool, previous: InterruptMeaning?) -> InterruptMeaning {
    if workIsRunning { return .cancelWork }
    return previous == .clearLine ? .exit : .clearLine
  }
}

/// The Ctrl-C presses of a session, since the last line it read: each one's meaning depends on
/// the one before.
public final class InterruptTracker: Sendable {
  private let last = Lock<InterruptMeaning?>(nil)

  /// A tracker that has seen no Ctrl-C.
  public init() {}

  /// The meaning of a Ctrl-C now, when work is or is not running.
  public func interrupted(workIsRunning: Bool) -> InterruptMeaning {
    last.withLock { last in
      let meaning = InterruptMeaning.of(workIsRunning: workIsRunning, previous: last)
      last = meaning
      return meaning
    }
  }

  /// The session read a line: the next Ctrl-C starts afresh.
  public func lineRead() {
    last.withLock { $0 = nil }
  }
}
