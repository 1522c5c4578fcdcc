#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(ucrt)
  import ucrt
#endif

/// Writes diagnostics to the process's standard error without Foundation.
enum StandardError {
  static func print(_ line: String) {
    var line = line
    if !line.hasSuffix("\n") { line += "\n" }
    var bytes = Array(line.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeMutableBytes { buffer in
        write(2, buffer.baseAddress! + offset, buffer.count - offset)
      }
      guard written > 0 else { return }
      offset += written
    }
  }
}
