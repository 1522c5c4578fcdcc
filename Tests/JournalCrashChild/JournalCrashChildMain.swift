import Dripper
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `JournalCrashChild DIRECTORY DURABILITY SNAPSHOT-EVERY`: recovers a ``Ledger`` from its durable
/// journal in DIRECTORY, then pours actions until it is killed, writing the count after each to
/// standard output once the action is reduced. DURABILITY is `action`, or a number of actions.
/// The journal tests kill it at random moments and recover what it left.
@main
enum JournalCrashChildMain {
  static func main() async {
    let arguments = CommandLine.arguments
    if arguments.count >= 4, arguments[1] == "host", let keys = Int(arguments[3]) {
      await host(arguments[2], keys: keys, inStore: arguments.dropFirst(4).first == "store")
    }
    if (3...4).contains(arguments.count), arguments[1] == "host-full" {
      await hostOnAFullDisk(arguments[2], inStore: arguments.dropFirst(3).first == "store")
    }
    if arguments.count == 5, arguments[1] == "race", let offset = Int(arguments[4]) {
      await race(arguments[2], node: arguments[3], offset: offset)
    }
    if arguments.count == 4, arguments[1] == "host-alarm", let start = Double(arguments[3]) {
      await hostAnAlarm(arguments[2], start: Date(timeIntervalSince1970: start))
    }
    guard arguments.count == 4, let snapshotEvery = Int(arguments[3]) else {
      fail("usage: JournalCrashChild DIRECTORY DURABILITY SNAPSHOT-EVERY")
    }
    let durability: JournalDurability =
      arguments[2] == "action" ? .everyAction : .everyActions(Int(arguments[2]) ?? 100)
    let journal = Ledger.journal(at: arguments[1], durability: durability, snapshotEvery: snapshotEvery)
    let station: StationOf<Ledger>
    do {
      station = try Station.recovering(from: journal, initialState: Ledger.State()) { Ledger() }
    } catch {
      fail("error: \(error)")
    }
    var count = await station.count
    while count < 10_000_000 {
      await station.pour(.add(Ledger.amount(count + 1))).finish()
      count += 1
      let line = Array("\(count)\n".utf8)
      _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
  }

  /// `JournalCrashChild host DIRECTORY KEYS [store]`: a ``StationHost`` of tallies in DIRECTORY (in
  /// a `FolderKeyStore` there, with `store`), poured request after request, each to the next of
  /// KEYS keys, with the request's number as its id; writes `KEY NUMBER` once each is acknowledged
  /// (its receipt returned), until it is killed.
  static func host(_ directory: String, keys: Int, inStore: Bool) async -> Never {
    let host: StationHost<String, HostedTally>
    do {
      host = try HostedTally.host(at: directory, node: "child", inStore: inStore)
    } catch {
      fail("error: \(error)")
    }
    var number = 0
    while true {
      let key = "key\(number % keys)"
      do {
        _ = try await host.pour(.add, to: key, id: String(number))
      } catch {
        fail("error: \(error)")
      }
      let line = Array("\(key) \(number)\n".utf8)
      _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
      number += 1
    }
  }

  /// `JournalCrashChild host-full DIRECTORY [store]`: a host of notes (in a `FolderKeyStore` in
  /// DIRECTORY, with `store`) whose files may not grow past 256 KiB
  /// (`RLIMIT_FSIZE`, SIGXFSZ ignored: a write past it fails with EFBIG, as on a full disk). It asks
  /// for 12 notes of 40 KB to key `big`, each followed by a small one to key `small`, and writes
  /// `ack KEY N` for each note acknowledged, `fail KEY N` for each refused, and what the notes'
  /// effects tell (`told KEY N`); then `done`, and waits to be killed.
  static func hostOnAFullDisk(_ directory: String, inStore: Bool) async -> Never {
    var limit = rlimit(rlim_cur: 256 * 1_024, rlim_max: 256 * 1_024)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("error: setrlimit: \(errno)") }
    signal(SIGXFSZ, SIG_IGN)
    let host: StationHost<String, HostedNotes>
    do {
      host = try StationHost(storage: .json(in: directory, node: "child", inStore: inStore)) { _ in
        HostedNotes.State()
      } dripper: { key in
        HostedNotes(key: key, tell: say)
      }
    } catch {
      fail("error: \(error)")
    }
    let big = String(repeating: "x", count: 40_000)
    for number in 0..<12 {
      for (key, text) in [("big", big), ("small", "s")] {
        do {
          _ = try await host.ask(.note(number, text), to: key, id: "\(key)-\(number)")
          say("ack \(key) \(number)")
        } catch {
          say("fail \(key) \(number)")
        }
      }
    }
    say("done")
    while true { sleep(60) }
  }

  /// `JournalCrashChild race DIRECTORY NODE OFFSET`: a host of notes in a `FolderKeyStore` in
  /// DIRECTORY, as node NODE, that takes notes OFFSET+1 … OFFSET+60 to key `contested` (each note's
  /// number its request id) while another process does the same. Writes `ack N` for each note
  /// acknowledged and `refused N` for each refused (the other process claimed the key; this one
  /// claims it again 20 ms later), then `done`, and exits.
  static func race(_ directory: String, node: String, offset: Int) async -> Never {
    let host: StationHost<String, HostedNotes>
    do {
      host = try StationHost(
        storage: .json(in: directory, node: node, inStore: true),
        lifetime: HostLifetime(retryFailedAfter: .milliseconds(20))
      ) { _ in
        HostedNotes.State()
      } dripper: { key in
        HostedNotes(key: key) { _ in }
      }
    } catch {
      fail("error: \(error)")
    }
    for number in offset + 1...offset + 60 {
      do {
        _ = try await host.ask(.note(number, ""), to: "contested", id: "\(number)")
        say("ack \(number)")
      } catch {
        guard case .storage(_, let journal) = error, journal.isHeldByAnotherProcess else {
          fail("error: \(error)")
        }
        say("refused \(number)")
        usleep(5_000)
      }
    }
    await host.close()
    say("done")
    exit(0)
  }

  /// `JournalCrashChild host-alarm DIRECTORY SECONDS`: a host of alarms whose wall time stays at
  /// SECONDS since 1970, each entry a snapshot. It sets key `alarm`'s alarm 100 s later, then 200
  /// s later (replacing it), pokes it three times, writes `ready`, and waits to be killed.
  static func hostAnAlarm(_ directory: String, start: Date) async -> Never {
    let host: StationHost<String, HostedAlarm>
    do {
      host = try StationHost(
        storage: .folder(directory, codec: .json, snapshotEvery: 1, node: "child"),
        lifetime: HostLifetime(time: HostTime(clock: ContinuousClock(), now: { start }))
      ) { _ in
        HostedAlarm.State()
      } dripper: { _ in
        HostedAlarm()
      }
    } catch {
      fail("error: \(error)")
    }
    do {
      for (number, action) in [
        HostedAlarm.Action.set(start.addingTimeInterval(100)), .set(start.addingTimeInterval(200)), .poke,
        .poke,
        .poke,
      ].enumerated() {
        _ = try await host.pour(action, to: "alarm", id: "\(number)")
      }
    } catch {
      fail("error: \(error)")
    }
    say("ready")
    while true { sleep(60) }
  }

  /// Writes `line` to standard output at once.
  @Sendable static func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
  }

  static func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
  }
}
