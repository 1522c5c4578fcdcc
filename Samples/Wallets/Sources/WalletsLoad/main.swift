import Foundation
import Synchronization

/// `wallets-load load|verify|bench`: the client CI's crash and SIGTERM script runs, and the
/// benchmark.
let usage = """
  usage: wallets-load load --port N --run NAME --requests N --wallets N --clients N --acks FILE [--seconds S]
         wallets-load verify --port N --wallets N --acks FILE...
         wallets-load bench [--seconds S] [--clients N]
  """

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("error: \(message)\n\(usage)\n".utf8))
  exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first else { fail("a mode is needed") }
var options: [String: [String]] = [:]
var index = 1
while index < arguments.count {
  let flag = arguments[index]
  guard flag.hasPrefix("--") else { fail("unexpected '\(flag)'") }
  index += 1
  while index < arguments.count, !arguments[index].hasPrefix("--") {
    options[flag, default: []].append(arguments[index])
    index += 1
  }
}

@MainActor func number(_ flag: String, default value: Int? = nil) -> Int {
  guard let text = options[flag]?.first else {
    guard let value else { fail("'\(flag)' is needed") }
    return value
  }
  guard let number = Int(text), number > 0 else { fail("'\(flag)' needs a positive whole number") }
  return number
}

@MainActor func text(_ flag: String) -> String {
  guard let value = options[flag]?.first else { fail("'\(flag)' is needed") }
  return value
}

switch mode {
case "load":
  exit(
    await load(
      port: number("--port"), run: text("--run"), requests: number("--requests"),
      wallets: number("--wallets"),
      clients: number("--clients"), acks: text("--acks"), seconds: number("--seconds", default: 120)))
case "verify":
  exit(await verify(port: number("--port"), wallets: number("--wallets"), acks: options["--acks"] ?? []))
case "bench":
  exit(await bench(seconds: number("--seconds", default: 3), clients: number("--clients", default: 32)))
default:
  fail("unknown mode '\(mode)'")
}
