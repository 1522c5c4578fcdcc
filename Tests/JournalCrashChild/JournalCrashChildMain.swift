import Dripper

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
    if arguments.count == 4, arguments[1] == "host", let keys = Int(arguments[3]) {
      await host(arguments[2], keys: keys)
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

  /// `JournalCrashChild host DIRECTORY KEYS`: a ``StationHost`` of tallies in DIRECTORY, poured
  /// request after request, each to the next of KEYS keys, with the request's number as its id;
  /// writes `KEY NUMBER` once each is acknowledged (its receipt returned), until it is killed.
  static func host(_ directory: String, keys: Int) async -> Never {
    let host: StationHost<String, HostedTally>
    do {
      host = try HostedTally.host(at: directory, node: "child")
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

  static func fail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
  }
}
