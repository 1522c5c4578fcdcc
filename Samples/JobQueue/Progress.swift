import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The progress report, and the summary at the end.
enum Progress {
  /// Reports progress on standard error until cancelled: on a terminal, a bar redrawn ten times a
  /// second at the terminal's current width (so a resize takes effect at the next redraw), erased
  /// at the end; otherwise a plain line each second. Standard output carries the summary alone.
  static func report(_ station: StationOf<JobQueue>, total: Int) async {
    let isTerminal = isatty(STDERR_FILENO) == 1
    while !Task.isCancelled {
      try? await Task.sleep(for: isTerminal ? .milliseconds(100) : .seconds(1))
      guard !Task.isCancelled else { break }
      let state = await station.state
      let (metrics, running) = (state.metrics, state.running)
      if isTerminal {
        writeError("\r\u{1B}[2K" + bar(metrics, running: running, total: total, columns: terminalColumns()))
      } else {
        writeError(
          "progress: \(metrics.ended)/\(total) ended, \(running) running, \(metrics.retried) retries\n")
      }
    }
    if isTerminal { writeError("\r\u{1B}[2K") }
  }

  /// `[########----------] 45% 450/1000 · 8 running · done 440 · failed 2 · retries 12`, cut to
  /// fit in `columns` without reaching the last one (a line that fills it wraps on some
  /// terminals): the bar narrows first, then goes, then the text is cut.
  static func bar(_ metrics: Metrics, running: Int, total: Int, columns: Int) -> String {
    let fraction = total == 0 ? 1 : min(Double(metrics.ended) / Double(total), 1)
    let text =
      "\(Int(fraction * 100))% \(metrics.ended)/\(total) · \(running) running · done \(metrics.done)"
      + " · failed \(metrics.failed) · retries \(metrics.retried)"
    let room = max(columns - 1, 0)
    let width = min(24, room - text.count - 3)
    guard width >= 5 else { return String(text.prefix(room)) }
    let filled = Int((fraction * Double(width)).rounded(.down))
    return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
      + text
  }

  /// The table printed at the end: its values right-aligned in one column as wide as the widest.
  /// The counts depend only on the seed; the times on the machine. Throughput counts the jobs that
  /// finished (done or failed), not those cancelled.
  ///
  /// The throughput counts the jobs this run finished, not those a resumed journal had finished
  /// before it (`finishedBefore`). An `interrupted` run with a journal says how many jobs it left
  /// to the next.
  static func summary(
    _ metrics: Metrics, elapsed: Duration, attempts: Int, finishedBefore: Int = 0, interrupted: Bool = false
  ) -> String {
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let finished = metrics.done + metrics.failed - finishedBefore
    let rate = seconds > 0 ? Int(Double(finished) / seconds) : 0
    var rows: [(name: String, value: String, note: String)] = [
      ("submitted", "\(metrics.submitted)", ""),
      ("done", "\(metrics.done)", ""),
      ("failed", "\(metrics.failed)", "after \(attempts) attempts"),
      ("cancelled", "\(metrics.cancelled)", ""),
      ("retries", "\(metrics.retried)", ""),
      ("p50 latency", milliseconds(metrics.latency(quantile: 0.5)), ""),
      ("p99 latency", milliseconds(metrics.latency(quantile: 0.99)), ""),
      ("elapsed", "\(round(seconds * 10) / 10) s", "\(rate) jobs/s finished"),
    ]
    if interrupted {
      rows.insert(
        (
          "interrupted", "\(metrics.submitted - metrics.ended)",
          "not ended: the next run with --journal resumes them"
        ),
        at: 4)
    }
    let width = rows.map(\.value.count).max().map { max($0, 10) } ?? 10
    return rows.map { row in
      "  " + row.name.padding(12) + row.value.leftPadding(width) + (row.note.isEmpty ? "" : "  " + row.note)
    }
    .joined(separator: "\n")
  }

  /// The process's exit status for a run: 128 plus the signal that stopped it (130 for Ctrl-C's
  /// SIGINT, 143 for SIGTERM, as a shell reports them), else 1 when any job failed for good, else
  /// 0. `stoppedBy` is 0 when no signal came.
  static func exitStatus(_ metrics: Metrics, stoppedBy signal: Int32 = 0) -> Int32 {
    signal != 0 ? 128 + signal : metrics.failed > 0 ? 1 : 0
  }

  private static func milliseconds(_ duration: Duration?) -> String {
    guard let duration else { return "-" }
    let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return "\(round(value * 10) / 10) ms"
  }

  /// Standard error's width in columns, 80 when it cannot be read.
  private static func terminalColumns() -> Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }
}

extension String {
  fileprivate func padding(_ width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }

  fileprivate func leftPadding(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
