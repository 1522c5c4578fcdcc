import Foundation
import Synchronization

/// Sends deposits `0..<requests` from `clients` connections, each retried with its idempotency key
/// until it gets a 2xx (the server may be killed and started again meanwhile) or `seconds` pass.
/// Each acknowledged deposit is written to `acks` as `key wallet cents`, as it is acknowledged.
/// Prints `progress: N` every 100 acknowledgements. Exit status 0 when every deposit was
/// acknowledged, 1 otherwise.
func load(port: Int, run: String, requests: Int, wallets: Int, clients: Int, acks: String, seconds: Int) async
  -> Int32
{
  guard FileManager.default.createFile(atPath: acks, contents: nil),
    let file = FileHandle(forWritingAtPath: acks)
  else {
    FileHandle.standardError.write(Data("error: cannot write \(acks)\n".utf8))
    return 2
  }
  let tally = Tally(file)
  let deadline = ContinuousClock.now + .seconds(seconds)
  let unanswered = await withTaskGroup(of: Int.self) { group in
    for _ in 0..<clients {
      group.addTask {
        let connection = Connection(port: port)
        var unanswered = 0
        while case let number = tally.next.add(1, ordering: .relaxed).oldValue, number < requests {
          let deposit = Deposit.number(number, of: run, wallets: wallets)
          var answered = false
          while !answered, ContinuousClock.now < deadline {
            if let status = try? await deposit.send(on: connection), (200..<300).contains(status) {
              answered = true
            } else {
              tally.retries.add(1, ordering: .relaxed)
              try? await Task.sleep(for: .milliseconds(50))
            }
          }
          guard answered else {
            unanswered += 1
            continue
          }
          tally.output.withLock { $0.write(Data("\(deposit.key) \(deposit.wallet) \(deposit.cents)\n".utf8)) }
          let count = tally.acknowledged.add(1, ordering: .relaxed).newValue
          if count % 100 == 0 { say("progress: \(count)") }
        }
        await connection.close()
        return unanswered
      }
    }
    return await group.reduce(0, +)
  }
  tally.output.withLock { try? $0.close() }
  say(
    "acknowledged \(tally.acknowledged.load(ordering: .relaxed)) of \(requests), \(tally.retries.load(ordering: .relaxed)) retries, \(unanswered) unanswered"
  )
  return unanswered == 0 ? 0 : 1
}

/// Reads every wallet and checks it holds exactly the acknowledged deposits of the `acks` files:
/// their count and their sum. Exit status 0 when all match, 1 otherwise.
func verify(port: Int, wallets: Int, acks: [String]) async -> Int32 {
  var expected: [String: (count: Int, cents: Int)] = [:]
  var keys = Set<String>()
  for path in acks {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      say("FAILED: cannot read \(path)")
      return 1
    }
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count == 3, let cents = Int(fields[2]) else { continue }
      guard keys.insert(String(fields[0])).inserted else {
        say("FAILED: \(fields[0]) acknowledged twice")
        return 1
      }
      expected[String(fields[1]), default: (0, 0)].count += 1
      expected[String(fields[1]), default: (0, 0)].cents += cents
    }
  }
  let connection = Connection(port: port)
  var wrong = 0
  for number in 0..<wallets {
    let wallet = "w\(number)"
    let want = expected[wallet] ?? (0, 0)
    guard let (status, body) = try? await connection.send(.get, "/wallets/\(wallet)") else {
      say("FAILED: \(wallet) could not be read")
      return 1
    }
    if status == 404, want.count == 0 { continue }
    struct View: Decodable {
      var balance: Int
      var deposits: Int
    }
    guard status == 200, let view = try? JSONDecoder().decode(View.self, from: Data(body.utf8)),
      view.deposits == want.count, view.balance == want.cents
    else {
      if wrong < 5 {
        say("FAILED: \(wallet): \(status) \(body), expected \(want.count) deposits of \(want.cents) cents")
      }
      wrong += 1
      continue
    }
  }
  await connection.close()
  guard wrong == 0 else { return 1 }
  say("verified \(wallets) wallets: \(keys.count) acknowledged deposits, each applied once")
  return 0
}

/// Writes a line to standard output at once, unbuffered: the script reads it while the run goes on.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// What the load's clients share.
final class Tally: Sendable {
  let next = Atomic<Int>(0)
  let acknowledged = Atomic<Int>(0)
  let retries = Atomic<Int>(0)
  let output: Mutex<FileHandle>

  init(_ file: FileHandle) { output = Mutex(file) }
}
