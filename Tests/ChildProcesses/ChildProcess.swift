#if canImport(Glibc)
  public import Glibc
#elseif canImport(Darwin)
  public import Darwin
#endif

/// A program built with the tests, run as a child process whose standard output the test reads:
/// spawned with `posix_spawn`, without Foundation's `Process`.
public final class ChildProcess {
  /// The child's process id.
  public let pid: pid_t
  /// The read end of the child's standard output.
  private let output: Int32
  private var buffered: [UInt8] = []
  private var exited = false

  /// Starts the executable `name`, built beside the test binary, with `arguments`.
  public init?(_ name: String, arguments: [String]) {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { return nil }
    let path = Self.testBinaryDirectory() + "/" + name
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    close(pipeEnds[1])
    guard spawned == 0 else {
      close(pipeEnds[0])
      return nil
    }
    self.pid = pid
    self.output = pipeEnds[0]
  }

  deinit {
    if !exited {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    close(output)
  }

  /// The lines the child has written so far, waiting up to `milliseconds` for the first.
  public func readLines(waitingUpTo milliseconds: Int32) -> [String] {
    var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
    var chunk = [UInt8](repeating: 0, count: 65_536)
    var timeout = milliseconds
    while poll(&descriptor, 1, timeout) > 0 {
      let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
      if count <= 0 { break }
      buffered += chunk[0..<count]
      timeout = 0
    }
    guard let end = buffered.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
    let lines = buffered[..<end].split(separator: UInt8(ascii: "\n")).map {
      String(decoding: $0, as: UTF8.self)
    }
    buffered.removeSubrange(...end)
    return lines
  }

  /// Kills the child with SIGKILL and waits for it to end.
  public func killAndWait() {
    kill(pid, SIGKILL)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    exited = true
  }

  /// The directory of the running test binary, where the package's executables are built.
  public static func testBinaryDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let path =
      count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
    // The binary is …/debug/DripperPackageTests.xctest (or a file inside that bundle elsewhere).
    var directory = path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
    while directory.hasSuffix(".xctest") || directory.contains(".xctest/") {
      directory = directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)]
    }
    return String(directory)
  }
}
