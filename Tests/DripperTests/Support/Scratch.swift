#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A directory of its own for a test's files, removed with what it holds when released.
final class ScratchDirectory: Sendable {
  let path: String

  init() {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/dripper-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "could not make a scratch directory in \(base)")
    path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { Self.remove(path) }

  /// `name` in the directory.
  func file(_ name: String) -> String { path + "/" + name }

  /// The bytes of `name`, or `nil` if there is none.
  func contents(_ name: String) -> [UInt8]? {
    guard let stream = fopen(file(name), "rb") else { return nil }
    defer { fclose(stream) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = fread(&chunk, 1, chunk.count, stream)
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }

  /// Writes `bytes` to `name`, replacing it, or appends them.
  func write(_ bytes: some Collection<UInt8>, to name: String, appending: Bool = false) {
    guard let stream = fopen(file(name), appending ? "ab" : "wb") else { return }
    defer { fclose(stream) }
    _ = Array(bytes).withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, stream) }
  }

  /// The text of `name`.
  func text(_ name: String) -> String { String(decoding: contents(name) ?? [], as: UTF8.self) }

  private static func remove(_ path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR {
      if let stream = opendir(path) {
        var names: [String] = []
        while let entry = readdir(stream) {
          let offset = MemoryLayout<dirent>.offset(of: \.d_name)!
          let name = String(
            cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
          if name != ".", name != ".." { names.append(name) }
        }
        closedir(stream)
        for name in names { remove(path + "/" + name) }
      }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}
