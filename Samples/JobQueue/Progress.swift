import Dripper

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The progress bar, and the summary at the end.
enum Progress {
  /// Shows progress until cancelled: a bar redrawn ten times a second on a terminal, a plain line
  /// each second otherwise.
  static func report(_ station: StationOf<JobQueue>, total: Int) async {
    let isTerminal = isatty(STDOUT_FILENO) == 1
    while !Task.isCancelled {
      try? await Task.sleep(for: isTerminal ? .milliseconds(100) : .seconds(1))
      let metrics = await station.metrics
      let running = await station.state.running
      if isTerminal {
        print("\r" + bar(metrics, running: running, total: total), terminator: "")
        fflushStandardOutput()
      } else if !Task.isCancelled {
        print("progress: \(metrics.ended)/\(total) ended, \(running) running, \(metrics.retried) retries")
      }
    }
    if isTerminal { print("\r\u{1B}[2K", terminator: "") }
  }

  /// `[########----------] 45% 450/1000 · 8 running · done 440 · failed 2 · retries 12`
  static func bar(_ metrics: Metrics, running: Int, total: Int) -> String {
    let width = 24
    let fraction = total == 0 ? 1 : Double(metrics.ended) / Double(total)
    let filled = Int((fraction * Double(width)).rounded(.down))
    return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
      + "\(Int(fraction * 100))% \(metrics.ended)/\(total) · \(running) running · done \(metrics.done)"
      + " · failed \(metrics.failed) · retries \(metrics.retried)"
  }

  /// The table printed at the end. The counts depend only on the seed; the times on the machine.
  static func summary(_ metrics: Metrics, jobs: Int, elapsed: Duration, attempts: Int) -> String {
    func row(_ name: String, _ value: String, _ note: String = "") -> String {
      "  " + name.padding(12) + value.leftPadding(10) + (note.isEmpty ? "" : "  " + note)
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let rate = seconds > 0 ? Int(Double(metrics.ended) / seconds) : 0
    return [
      row("submitted", "\(metrics.submitted)"),
      row("done", "\(metrics.done)"),
      row("failed", "\(metrics.failed)", "after \(attempts) attempts"),
      row("cancelled", "\(metrics.cancelled)"),
      row("retries", "\(metrics.retried)"),
      row("p50 latency", milliseconds(metrics.latency(quantile: 0.5))),
      row("p99 latency", milliseconds(metrics.latency(quantile: 0.99))),
      row("elapsed", "\(round(seconds * 10) / 10) s", "\(rate) jobs/s"),
    ].joined(separator: "\n")
  }

  private static func milliseconds(_ duration: Duration?) -> String {
    guard let duration else { return "-" }
    let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return "\(round(value * 10) / 10) ms"
  }

  private static func fflushStandardOutput() {
    fflush(nil)
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
