import Dispatch
import Dripper
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A ``Wire`` between processes: each node listens on a Unix socket `DIRECTORY/NODE.sock`, and a
/// call to a node is a frame (a 4-byte length, then the call's JSON) on a connection to it, its
/// reply a frame back. Test code only: a shipped service brings its own actor system and transport.
public final class SocketWire: Wire {
  private let directory: String
  private let server = Lock<Int32?>(nil)

  /// A wire through the sockets in `directory`.
  public init(directory: String) {
    self.directory = directory
  }

  /// The socket of `node`.
  public func path(of node: String) -> String { directory + "/" + node + ".sock" }

  /// Serves the calls that reach `system`'s node, each connection on a thread of its own, until the
  /// process ends.
  public func serve(_ system: JSONActorSystem) throws {
    let path = path(of: system.node)
    unlink(path)
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw RemoteCallFailure(message: "socket: \(errno)") }
    var address = Self.address(path)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0, listen(descriptor, 64) == 0 else {
      close(descriptor)
      throw RemoteCallFailure(message: "cannot listen on \(path): \(errno)")
    }
    server.withLock { $0 = descriptor }
    Thread {
      while true {
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else {
          if errno == EINTR { continue }
          return
        }
        Thread { Self.serveConnection(connection, system) }.start()
      }
    }.start()
  }

  private static func serveConnection(_ connection: Int32, _ system: JSONActorSystem) {
    defer { close(connection) }
    while let call = readFrame(connection) {
      let done = DispatchSemaphore(value: 0)
      let reply = Lock([UInt8]())
      Task {
        let bytes = await system.handle(call)
        reply.withLock { $0 = bytes }
        done.signal()
      }
      done.wait()
      guard writeFrame(reply.withLock { $0 }, to: connection) else { return }
    }
  }

  /// Describes the wire's failure to reach `target`.
  public func deliver(_ call: [UInt8], from node: String, to target: String) async throws -> [UInt8] {
    let path = path(of: target)
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(with: Self.exchange(call, at: path, target: target))
      }.start()
    }
  }

  private static func exchange(_ call: [UInt8], at path: String, target: String) -> Result<[UInt8], any Error>
  {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return .failure(NetworkFailure.unreachable(target)) }
    defer { close(descriptor) }
    var address = address(path)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0, writeFrame(call, to: descriptor) else {
      return .failure(NetworkFailure.unreachable(target))
    }
    // The call was sent: no reply means it may have run (the node died, or the reply was lost).
    guard let reply = readFrame(descriptor) else { return .failure(NetworkFailure.replyLost(target)) }
    return .success(reply)
  }

  private static func address(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return address
  }

  /// A frame: its length in 4 bytes, big-endian, then its bytes; `nil` at the end of the stream.
  private static func readFrame(_ descriptor: Int32) -> [UInt8]? {
    guard let header = readExactly(4, from: descriptor) else { return nil }
    let length = header.reduce(0) { $0 << 8 | Int($1) }
    guard length <= 64 << 20 else { return nil }
    return readExactly(length, from: descriptor)
  }

  private static func readExactly(_ count: Int, from descriptor: Int32) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    var offset = 0
    while offset < count {
      let read = bytes.withUnsafeMutableBytes {
        Glibc.read(descriptor, $0.baseAddress! + offset, count - offset)
      }
      if read < 0, errno == EINTR { continue }
      guard read > 0 else { return nil }
      offset += read
    }
    return bytes
  }

  private static func writeFrame(_ frame: [UInt8], to descriptor: Int32) -> Bool {
    let length = UInt32(frame.count)
    var bytes = [
      UInt8(length >> 24), UInt8((length >> 16) & 0xff), UInt8((length >> 8) & 0xff), UInt8(length & 0xff),
    ]
    bytes += frame
    var offset = 0
    while offset < bytes.count {
      // `send` with MSG_NOSIGNAL, not `write`: writing to a connection whose other end has closed
      // (a node killed mid-call) raises SIGPIPE, which killed the whole test process in CI's
      // AddressSanitizer run ("exited with unexpected signal code 13"); here it is an error.
      let written = bytes.withUnsafeBytes {
        send(descriptor, $0.baseAddress! + offset, $0.count - offset, noSignal)
      }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return false }
      offset += written
    }
    return true
  }
}

/// `send`'s flag that makes a write to a closed connection an error (`EPIPE`) rather than SIGPIPE.
#if os(Linux)
  private let noSignal = Int32(MSG_NOSIGNAL)
#else
  private let noSignal: Int32 = 0
#endif
