#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Nanoseconds on a monotonic clock.
func nanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// The command line.
struct BenchmarkOptions {
  /// Fewer operations and repetitions: a smoke test that the benchmark still runs.
  var quick = false
  /// Only the groups of rows whose name contains this text (`scale` only when it names it).
  var filter: String?

  /// Run the soak for this many seconds instead of the rows.
  var soakSeconds: Int?

  /// Exit with status 1 when a row exceeds its bound: how CI catches a change that loses speed.
  var check = false

  static let usage =
    "usage: dripper-bench [--quick] [--check] [--filter TEXT] | --soak SECONDS | --profile-MODE"

  /// Reads the command line, or explains in one line what is wrong with it.
  static func parse(_ arguments: [String]) -> Result<BenchmarkOptions, OptionError> {
    var options = BenchmarkOptions()
    var arguments = arguments.makeIterator()
    while let argument = arguments.next() {
      switch argument {
      case "--quick": options.quick = true
      case "--check": options.check = true
      case "--filter":
        guard let text = arguments.next() else { return .failure(OptionError("'--filter' needs a text")) }
        options.filter = text
      case "--soak":
        guard let text = arguments.next(), let seconds = Int(text), (1...3_600).contains(seconds) else {
          return .failure(OptionError("'--soak' needs a number of seconds from 1 to 3600"))
        }
        options.soakSeconds = seconds
      default:
        return .failure(OptionError("unknown option '\(argument.prefix(40))'"))
      }
    }
    if let filter = options.filter, !rowGroups.contains(where: options.includes) {
      if filter.localizedStandardContains("postgres") {
        return .failure(
          OptionError(
            "the PostgreSQL rows are a package of their own: in Integrations/DripperPostgres, swift run -c release dripper-postgres-bench"
          ))
      }
      let names = rowGroups.map(\.name).joined(separator: ", ")
      return .failure(OptionError("no group of rows matches '\(filter.prefix(40))' (the groups: \(names))"))
    }
    return .success(options)
  }

  /// The number of operations of a row that does `full` of them in a full run.
  func operations(_ full: Int) -> Int { quick ? max(1, full / 100) : full }

  var repetitions: Int { quick ? 1 : 5 }

  func includes(_ group: RowGroup) -> Bool {
    guard let filter else { return !group.onlyByName }
    return group.onlyByName ? filter.contains(group.name) : group.name.localizedStandardContains(filter)
  }
}

/// Why the command line is wrong, in one line.
struct OptionError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension String {
  fileprivate func localizedStandardContains(_ other: String) -> Bool {
    lowercased().contains(other.lowercased())
  }
}

/// One row of the report.
struct Row {
  let group: String
  let name: String
  /// Nanoseconds per operation: the best of the repetitions.
  let nanoseconds: Double
  /// The name of the row this one is a ratio to.
  var baseline: String?
  /// The largest ratio to the baseline the design allows.
  var target: Double?
  /// The ratio past which `--check` fails: a generous multiple of the target, so that only a
  /// change that loses the speed fails, not the noise of a loaded machine.
  var bound: Double?
  /// Anything else worth printing: memory, counts.
  var note: String?
}

/// Runs `body`, which performs `operations` operations, several times; returns the best time per
/// operation, the one least disturbed by the rest of the machine. It runs on the caller's actor:
/// called from the main actor, the loop is on the main actor, as an app's code is.
func measure(
  _ options: BenchmarkOptions, operations: Int, isolation: isolated (any Actor)? = #isolation,
  _ body: () async -> Void
) async -> Double {
  var best = Double.infinity
  for _ in 0..<options.repetitions {
    let start = nanoseconds()
    await body()
    best = min(best, Double(nanoseconds() - start) / Double(operations))
  }
  return best
}

/// Runs each body, which performs `operations` operations, once per round, alternating them, and
/// returns each one's best time per operation: rows compared with each other are measured under the
/// same conditions, so that the noise of the machine falls on all of them alike.
func measureInterleaved(
  _ options: BenchmarkOptions, operations: Int, _ bodies: [() async -> Void]
) async -> [Double] {
  var best = Array(repeating: Double.infinity, count: bodies.count)
  for _ in 0..<(options.quick ? 1 : 7) {
    for (index, body) in bodies.enumerated() {
      let start = nanoseconds()
      await body()
      best[index] = min(best[index], Double(nanoseconds() - start) / Double(operations))
    }
  }
  return best
}

/// Peak resident memory of the process so far, in kibibytes.
func peakResidentKiB() -> Int {
  var usage = rusage()
  #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
  #else
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss) / 1024
  #endif
}

/// Current resident memory of the process, in kibibytes (Linux; 0 elsewhere).
func residentKiB() -> Int {
  #if canImport(Glibc)
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 128)
    guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let fields = text.split(separator: " ").compactMap { Int($0) }
    guard fields.count >= 2 else { return 0 }
    return fields[1] * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
  #else
    return 0
  #endif
}

/// The printed report.
struct Report {
  let rows: [Row]
  let options: BenchmarkOptions

  var text: String {
    var lines = [
      "dripper-bench: \(options.quick ? "quick smoke run, figures not meaningful" : "best of 5 runs per row"); "
        + "ratios are to baselines measured in this run",
      "",
    ]
    let width = max(40, rows.map(\.name.count).max() ?? 0)
    var group = ""
    for row in rows {
      if row.group != group {
        group = row.group
        lines.append("## \(group)")
      }
      var line = row.name.padding(width) + "  " + format(row.nanoseconds).leftPadding(10) + " ns/op"
      if let baseline = row.baseline, let base = rows.first(where: { $0.name == baseline }) {
        let ratio = row.nanoseconds / base.nanoseconds
        line += "  " + (String(Self.format2(ratio)) + "x " + baseline).padding(44)
        if let target = row.target {
          line += "  target <= \(Self.format2(target))x: " + (ratio <= target ? "met" : "MISSED")
        }
      }
      if let note = row.note { line += "  (\(note))" }
      lines.append(line)
    }
    if options.check {
      lines.append("")
      let failures = outOfBounds
      lines.append(
        failures.isEmpty
          ? "check: every row is within its bound"
          : failures.map {
            "check FAILED: \($0.row.name): \(Self.format2($0.ratio))x, bound \(Self.format2($0.row.bound!))x"
          }
          .joined(separator: "\n"))
    }
    return lines.joined(separator: "\n")
  }

  /// The rows whose ratio to their baseline exceeds their bound.
  var outOfBounds: [(row: Row, ratio: Double)] {
    rows.compactMap { row in
      guard let bound = row.bound, let name = row.baseline,
        let base = rows.first(where: { $0.name == name })
      else { return nil }
      let ratio = row.nanoseconds / base.nanoseconds
      return ratio > bound ? (row, ratio) : nil
    }
  }

  private func format(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : Self.format2(value)
  }

  static func format2(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let sign = hundredths < 0 ? "-" : ""
    let fraction = String(hundredths.magnitude % 100)
    return "\(sign)\(hundredths.magnitude / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
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
