import Foundation
import Hummingbird
import Logging
import WalletsServer

/// `Wallets --data DIR [--port N]` or `Wallets --in-memory [--port N]`: serves wallets on
/// 127.0.0.1 until SIGTERM or SIGINT, then closes the host and exits 0.
let usage = "usage: Wallets (--data DIR | --in-memory) [--port N] [--log-level LEVEL]"
var arguments = CommandLine.arguments.dropFirst()
var folder: String?
var inMemory = false
var port = 8080
var level = Logger.Level.info

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("error: \(message)\n\(usage)\n".utf8))
  exit(2)
}

while let flag = arguments.popFirst() {
  switch flag {
  case "--data":
    guard let value = arguments.popFirst(), !value.isEmpty else { fail("'--data' needs a folder") }
    folder = value
  case "--in-memory": inMemory = true
  case "--port":
    guard let value = arguments.popFirst(), let number = Int(value), (0...65_535).contains(number) else {
      fail("'--port' needs a number from 0 to 65535")
    }
    port = number
  case "--log-level":
    guard let value = arguments.popFirst(), let parsed = Logger.Level(rawValue: value) else {
      fail("'--log-level' needs trace, debug, info, notice, warning, error or critical")
    }
    level = parsed
  case "--help", "-h":
    print(usage)
    exit(0)
  default: fail("unknown option '\(flag)'")
  }
}
guard (folder != nil) != inMemory else { fail("give one of '--data DIR' and '--in-memory'") }

var logger = Logger(label: "wallets")
logger.logLevel = level
do {
  let service = try makeWalletService(folder: folder, logger: logger)
  let app = buildApplication(service, port: port, logger: logger) { port in
    FileHandle.standardOutput.write(Data("listening on 127.0.0.1:\(port)\n".utf8))
  }
  try await app.runService()
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}
