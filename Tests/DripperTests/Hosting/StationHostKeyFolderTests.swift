import Foundation
import Testing

@testable import Dripper

/// A host of accounts in `path`.
private func accounts(
  _ path: String, node: String = "local", diagnostics: LockIsolated<[String]>? = nil
) throws(HostError) -> StationHost<String, Account> {
  try StationHost(
    storage: .folder(path, codec: .json, node: node),
    observer: StationHostObserver(diagnostic: { key, diagnostic in
      diagnostics?.withValue { $0.append("\(key): \(diagnostic.message)") }
    })
  ) { _ in
    Account.State()
  } dripper: { _ in
    Account()
  }
}

/// The folders under `root/keys`, three levels down: one a key.
private func keyFolders(_ root: String) -> [String] {
  let keys = root + "/keys"
  guard let enumerator = FileManager.default.enumerator(atPath: keys) else { return [] }
  return enumerator.compactMap { $0 as? String }.filter { $0.split(separator: "/").count == 3 }.sorted()
}

/// Issue 57: a key's folder is its own, whatever its spelling, and only a write makes one.
@Suite struct StationHostKeyFolderTests {
  /// `"café"` with a composed `é` and with `e` and a combining accent are one key in Swift: they
  /// have one folder, one history, whichever spelling comes first.
  @Test func canonicallyEquivalentKeysShareOneFolder() async throws {
    let scratch = ScratchDirectory()
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    #expect(composed == decomposed)
    do {
      let host = try accounts(scratch.path)
      _ = try await host.pour(.deposit(1), to: decomposed, id: "1")
      _ = try await host.pour(.deposit(2), to: composed, id: "2")
      await host.close()
    }
    #expect(keyFolders(scratch.path).count == 1)
    let host = try accounts(scratch.path)
    #expect(try await host.state(of: composed).balance == 3)
    #expect(try await host.pour(.deposit(1), to: decomposed, id: "1").duplicate)
    await host.close()
  }

  /// Keys that differ only by case get folders whose names differ with case ignored, as on
  /// macOS's default file system: before, `kABcDEfgHIJ` and `kABcDEfgHIj`.
  @Test func keysDifferingOnlyByCaseGetFoldersDistinctWithCaseIgnored() async throws {
    let scratch = ScratchDirectory()
    let keys = ["ABcDEfgHIJ", "ABcDEfgHIj", "abcdefghij", "a_b", "aB", "A-B", "a%42"]
    do {
      let host = try accounts(scratch.path)
      for (amount, key) in keys.enumerated() {
        _ = try await host.pour(.deposit(amount + 1), to: key, id: "1")
      }
      await host.close()
    }
    let names = keyFolders(scratch.path).map { $0.split(separator: "/").last!.lowercased() }
    #expect(Set(names).count == keys.count, "\(names)")
    let host = try accounts(scratch.path)
    for (amount, key) in keys.enumerated() { #expect(try await host.state(of: key).balance == amount + 1) }
    await host.close()
  }

  /// A read of a key never written makes nothing on disk, and `exists` says so; a pour makes its
  /// folder.
  @Test func aReadCreatesNothingAndExistsSaysWhetherAKeyWasWritten() async throws {
    let scratch = ScratchDirectory()
    let host = try accounts(scratch.path)
    for key in ["unknown-1", "unknown-2", "unknown-3"] {
      #expect(try await host.state(of: key).balance == 0)
      #expect(try await host.exists(key) == false)
    }
    await host.passivate("unknown-1")
    #expect(keyFolders(scratch.path).isEmpty)
    #expect(try await host.exists("alice") == false)
    _ = try await host.pour(.deposit(5), to: "alice", id: "1")
    #expect(try await host.exists("alice"))
    await host.passivate("alice")
    #expect(try await host.exists("alice"))
    await host.close()
    #expect(keyFolders(scratch.path).count == 1)
    let again = try accounts(scratch.path)
    #expect(try await again.exists("alice"))
    #expect(try await again.exists("unknown-1") == false)
    await again.close()
  }

  /// An in-memory host says the same of its keys.
  @Test func anInMemoryKeyExistsOnceWritten() async throws {
    let host = try StationHost<String, Account> { _ in
      Account.State()
    } dripper: { _ in
      Account()
    }
    _ = try await host.state(of: "reader")
    #expect(try await host.exists("reader") == false)
    await host.pour(.deposit(1), to: "writer").finish()
    #expect(try await host.exists("writer"))
    await host.passivate("writer")
    #expect(try await host.exists("writer"))
    await host.close()
  }

  /// A folder whose parents are missing is made with them; one that cannot be made is the host's
  /// error, which names no key.
  @Test func aFoldersParentsAreMadeAndAHostErrorNamesNoKey() async throws {
    let scratch = ScratchDirectory()
    let host = try accounts(scratch.path + "/a/b/c")
    _ = try await host.pour(.deposit(1), to: "alice", id: "1")
    await host.close()
    #expect(FileManager.default.fileExists(atPath: scratch.path + "/a/b/c/keys"))
    #expect(FileManager.default.createFile(atPath: scratch.path + "/file", contents: Data()))
    #expect(throws: HostError.hostStorage("\(scratch.path)/file: it is not a directory")) {
      try accounts(scratch.path + "/file/b")
    }
    #expect(
      HostError.hostStorage("x: it is not a directory").description
        == "the host's storage: x: it is not a directory")
  }

  /// A key an earlier Dripper kept under its old folder name (`k` and the text as given) is found
  /// there and moved to its new folder; two old folders of one key, under two spellings, are
  /// refused, left as they are.
  @Test func aFolderWrittenUnderTheOldNameIsFoundAndMoved() async throws {
    let scratch = ScratchDirectory()
    let key = "cafe\u{301} Bar"
    do {
      let host = try accounts(scratch.path)
      _ = try await host.pour(.deposit(4), to: key, id: "1")
      await host.close()
    }
    // As an earlier Dripper left it: under the old name of the text as it was given.
    let new = KeyFolder.path(of: key, in: scratch.path).path
    // Swift's == calls the spellings equal: they are told apart by their bytes.
    let old = try #require(
      KeyFolder.legacyPaths(of: key, in: scratch.path).first { $0.text.utf8.elementsEqual(key.utf8) }
    ).path
    try FileManager.default.createDirectory(
      atPath: String(old[..<old.lastIndex(of: "/")!]), withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: new, toPath: old)
    do {
      let host = try accounts(scratch.path)
      #expect(try await host.exists(key))
      #expect(try await host.state(of: key).balance == 4)
      #expect(try await host.state(of: "caf\u{E9} Bar").balance == 4)
      #expect(try await host.pour(.deposit(4), to: key, id: "1").duplicate)
      await host.close()
    }
    #expect(FileManager.default.fileExists(atPath: new + "/journal"))
    #expect(!FileManager.default.fileExists(atPath: old))

    // Two old folders, one a spelling: which history is right is for a person to say.
    let composedOld = try #require(
      KeyFolder.legacyPaths(of: key, in: scratch.path).first { !$0.text.utf8.elementsEqual(key.utf8) }
    ).path
    try FileManager.default.createDirectory(
      atPath: String(old[..<old.lastIndex(of: "/")!]), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: String(composedOld[..<composedOld.lastIndex(of: "/")!]), withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: new, toPath: old)
    try FileManager.default.copyItem(atPath: old, toPath: composedOld)
    let diagnostics = LockIsolated<[String]>([])
    let host = try accounts(scratch.path, diagnostics: diagnostics)
    await #expect(throws: HostError.self) { try await host.state(of: key) }
    #expect(diagnostics.value.first?.contains("two folders hold this key under two spellings") == true)
    #expect(FileManager.default.fileExists(atPath: old))
    #expect(FileManager.default.fileExists(atPath: composedOld))
    await host.close()
  }
}
