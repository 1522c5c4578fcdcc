import Dripper
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The service: opens the accounts, a request id each, from a pool of workers, and says how the
/// host fares as it goes.
final class Service: Sendable {
  let options: Options
  let host: StationHost<String, Account>
  let data: String
  /// How many accounts, from 0, are known to be opened: the next run resumes there.
  private let watermark: Watermark

  init(_ options: Options) throws {
    self.options = options
    data = options.data!
    host = try StationHost(
      storage: .folder(data, codec: .json),
      lifetime: HostLifetime(idleAfter: .seconds(30), maximumResident: options.resident)
    ) { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    watermark = Watermark(path: data + "/opened")
  }

  static func key(_ number: Int) -> String { "acct-\(number)" }

  /// Opens the accounts not opened yet; returns the exit status.
  func run() async -> Int32 {
    let start = watermark.value
    writeOutput("Accounts: \(options.accounts) accounts in \(data), at most \(options.resident) resident")
    if start > 0 {
      writeOutput(
        "resuming in \(data): \(min(start, options.accounts)) of \(options.accounts) accounts opened before")
    }
    // Reminders that fell due while the service was down are poured as the host starts.
    await host.settle()
    let firedOnStart = host.counts.remindersFired
    if firedOnStart > 0 {
      writeOutput("bonuses paid on start: \(firedOnStart) (due while the service was down)")
    }
    let began = ContinuousClock.now
    // Small chunks: the mark a restart resumes from moves soon after the first accounts open.
    let chunk = 8
    let tally = Tally(chunks: Array(stride(from: max(start, 0), to: options.accounts, by: chunk)))
    let progress = Task { await self.reportProgress(tally, from: start) }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<options.workers {
        group.addTask { [self] in
          while let first = tally.nextChunk() {
            for number in first..<min(first + chunk, options.accounts) {
              do {
                let receipt = try await host.pour(
                  .open(bonusAfter: options.bonusAfter), to: Self.key(number), id: "open")
                tally.opened.add(1, ordering: .relaxed)
                if receipt.duplicate { tally.duplicates.add(1, ordering: .relaxed) }
              } catch {
                if tally.failures.add(1, ordering: .relaxed).newValue <= 5 { writeError("error: \(error)\n") }
              }
            }
            watermark.completed(first, count: chunk)
          }
        }
      }
    }
    progress.cancel()
    let elapsed = ContinuousClock.now - began
    let counts = host.counts
    await host.close()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let (opened, duplicates) = (
      tally.opened.load(ordering: .relaxed), tally.duplicates.load(ordering: .relaxed)
    )
    writeOutput("opened \(opened - duplicates) new accounts (\(duplicates) already opened)")
    writeOutput(Self.summary(counts, seconds: seconds, opened: opened))
    return tally.failures.load(ordering: .relaxed) == 0 ? 0 : 1
  }

  /// Reads every account and checks that each was opened once; returns the exit status.
  func verify() async -> Int32 {
    let tally = Tally(chunks: [])

    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<options.workers {
        group.addTask { [self] in
          while true {
            let number = tally.duplicates.add(1, ordering: .relaxed).oldValue
            guard number < options.accounts else { return }
            guard let account = try? await host.state(of: Self.key(number)), account.opens == 1,
              account.balance == Account.openingBalance + (account.bonusPaid ? Account.bonus : 0)
            else {
              if tally.failures.add(1, ordering: .relaxed).newValue <= 5 {
                writeError("error: account \(number) is wrong\n")
              }
              continue
            }
            if account.bonusPaid { tally.opened.add(1, ordering: .relaxed) }
          }
        }
      }
    }
    await host.close()
    let bad = tally.failures.load(ordering: .relaxed)
    writeOutput(
      "verified \(options.accounts) accounts: \(bad == 0 ? "each opened once" : "\(bad) wrong"), "
        + "\(tally.opened.load(ordering: .relaxed)) bonuses paid")
    return bad == 0 ? 0 : 1
  }

  /// A progress line a second: the accounts opened and the host's counts.
  private func reportProgress(_ tally: Tally, from start: Int) async {
    while !Task.isCancelled {
      try? await Task.sleep(for: .seconds(1))
      if Task.isCancelled { return }
      let counts = host.counts
      writeOutput(
        "progress: \(start + tally.opened.load(ordering: .relaxed))/\(options.accounts) opened, "
          + "resident \(counts.resident), passivations \(counts.passivations), reminders pending \(counts.remindersPending), "
          + "memory \(residentMegabytes()) MB")
    }
  }

  static func summary(_ counts: HostCounts, seconds: Double, opened: Int) -> String {
    let rows: [(String, String, String)] = [
      ("resident", "\(counts.resident)", ""),
      ("activations", "\(counts.activations)", "\(counts.recoveries) from disk"),
      ("passivations", "\(counts.passivations)", "\(counts.evictions) to stay under the cap"),
      ("bonuses paid", "\(counts.remindersFired)", ""),
      (
        "bonuses due", "\(counts.remindersPending)",
        counts.remindersPending > 0 ? "paid by a later run once due" : ""
      ),
      (
        "elapsed", "\(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s",
        "\(Int(Double(opened) / max(seconds, 0.001))) accounts/s"
      ),
    ]
    return rows.map { name, value, note in
      "  " + name.padding(toLength: 14, withPad: " ", startingAt: 0)
        + String(repeating: " ", count: max(0, 9 - value.count)) + value + (note.isEmpty ? "" : "  " + note)
    }.joined(separator: "\n")
  }
}

/// The resident memory, in MB.
func residentMegabytes() -> Int {
  guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
    let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
  else { return 0 }
  return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// How many accounts, from 0, are opened: chunks complete in any order; the mark moves past the
/// ones complete without a gap, and is written to a file (atomically) for the next run.
///
/// Its locks are Dripper's `LockIsolated`, not `Mutex`: on Linux a contended `Mutex` is handed
/// from one holder to the next in code ThreadSanitizer does not see, and it then reports the
/// workers' accesses as races (CI's TSan run did); `LockIsolated` gives it that order.
final class Watermark: Sendable {
  private let path: String
  private let state: LockIsolated<(value: Int, done: Set<Int>)>
  /// The mark last written. Two workers that move the mark write in the order they take this lock,
  /// and only a higher mark than the one written: written in the order they moved it, outside
  /// `state`'s lock, a lower mark could land last (the README's session once resumed from 184 of
  /// 200 accounts).
  private let written = LockIsolated(0)

  init(path: String) {
    self.path = path
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    state = LockIsolated((Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, []))
  }

  var value: Int { state.value.value }

  /// The chunk of `count` accounts from `first` is opened.
  func completed(_ first: Int, count: Int) {
    let moved = state.withValue { state -> Int? in
      state.done.insert(first)
      var moved = false
      while state.done.remove(state.value) != nil {
        state.value += count
        moved = true
      }
      return moved ? state.value : nil
    }
    guard let moved else { return }
    written.withValue { last in
      guard moved > last else { return }
      try? String(moved).write(toFile: path, atomically: true, encoding: .utf8)
      last = moved
    }
  }
}

/// What the workers count, and the chunks they take.
final class Tally: Sendable {
  let failures = Atomic<Int>(0)
  let opened = Atomic<Int>(0)
  let duplicates = Atomic<Int>(0)
  private let chunks: LockIsolated<IndexingIterator<[Int]>>

  init(chunks: [Int]) {
    self.chunks = LockIsolated(chunks.makeIterator())
  }

  func nextChunk() -> Int? { chunks.withValue { $0.next() } }
}
