import Dripper
import DripperTesting
import Foundation
import REPLSupport
import Synchronization
import Testing

@testable import TodosREPL

@Suite struct PersistenceTests {
  private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "dripper-todos-\(UUID().uuidString)-\(name)"
  }

  @Test func aSavedListLoadsBack() throws {
    let path = temporaryPath("list.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let document = Document(todos: [Row.State(id: id(1), title: "Milk", isDone: true)])
    try Persistence.save(document, to: path).get()
    #expect(try Persistence.load(from: path).get() == document)
    // The write went through a temporary file, which is gone.
    let directory = (path as NSString).deletingLastPathComponent
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix((path as NSString).lastPathComponent + ".tmp") }
    #expect(leftovers.isEmpty)
  }

  /// Before, a loaded title printed raw: this file cleared the screen and renamed the terminal.
  @Test func titlesFromAFileCannotDriveTheTerminal() throws {
    let json =
      #"{"version": 1, "todos": [{"id": "00000000-0000-0000-0000-000000000001", "title": "\u001B]0;owned\u0007\u001B[2Jmilk\nforged line", "isDone": true}]}"#
    let document = try Persistence.decode(Data(json.utf8), from: "crafted.json").get()
    let state = Todos.State(rows: IdentifiedArray(document.todos))
    for colors in [false, true] {
      let shown = Rendering.view(of: state, colors: colors)
      #expect(shown.contains(#"\u{1B}]0;owned\u{07}\u{1B}[2Jmilk\nforged line"#))
      #expect(!shown.contains("\u{07}") && !shown.contains("\u{1B}]") && !shown.contains("\u{1B}[2J"))
      #expect(shown.split(separator: "\n").count == 2)
    }
    #expect(InputInvariants.renderingViolations(of: document).isEmpty)
  }

  /// Before, with HOME unset the list went to the current directory.
  @Test func withoutHomeThereIsNoDefaultFile() throws {
    #expect(throws: PersistenceError.self) { try Persistence.defaultPath(environment: [:]).get() }
    #expect(try Persistence.defaultPath(environment: ["HOME": "/home/a"]).get() == "/home/a/.todos.json")
  }

  /// Before, saving onto a link replaced the link with a file and left its target as it was.
  @Test func savingOntoALinkUpdatesItsTarget() throws {
    let target = temporaryPath("target.json")
    let link = temporaryPath("link.json")
    defer {
      try? FileManager.default.removeItem(atPath: target)
      try? FileManager.default.removeItem(atPath: link)
    }
    try Persistence.save(Document(todos: []), to: target).get()
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let document = Document(todos: [Row.State(id: id(1), title: "Milk", isDone: false)])
    try Persistence.save(document, to: link).get()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
    #expect(try Persistence.load(from: target).get() == document)
  }

  /// Before, `load /dev/null` said "permission denied or unreadable"; then it read the device as an
  /// empty file. A device is not a list: it is refused before anything is read (issue 42).
  @Test func errorsNameTheRealCause() {
    #expect(
      Persistence.load(from: "/dev/null")
        == .failure(PersistenceError("/dev/null is not a regular file (a device, a FIFO or a socket)")))
  }

  @Test func aMissingFileIsOneLine() {
    let path = temporaryPath("missing.json")
    #expect(Persistence.load(from: path) == .failure(PersistenceError("no file at \(path)")))
  }

  @Test(arguments: [
    ("not json at all", "the file is not valid JSON"),
    ("{\"version\": 1}", "missing 'todos'"),
    (
      "{\"version\": 1, \"todos\": [{\"id\": \"nope\", \"title\": \"x\", \"isDone\": false}]}",
      "bad value at todos.[0].id"
    ),
    (
      "{\"version\": 1, \"todos\": [{\"id\": 3, \"title\": \"x\", \"isDone\": false}]}",
      "wrong type at todos.[0].id"
    ),
  ])
  func aCorruptFileIsOneLine(contents: String, reason: String) throws {
    let path = temporaryPath("corrupt.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try contents.write(toFile: path, atomically: false, encoding: .utf8)
    #expect(
      Persistence.load(from: path) == .failure(PersistenceError("\(path) is not a todo list: \(reason)")))
  }

  @Test func aLaterVersionIsRefused() throws {
    let path = temporaryPath("v2.json")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try "{\"version\": 2, \"todos\": []}".write(toFile: path, atomically: false, encoding: .utf8)
    #expect(
      Persistence.load(from: path)
        == .failure(PersistenceError("\(path) is a todo list of version 2; this program reads version 1")))
  }

  @Test func aDirectoryIsNotAList() throws {
    let path = temporaryPath("directory")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(Persistence.load(from: path) == .failure(PersistenceError("\(path) is a directory")))
  }

  @Test func twoTodosWithOneIDAreRefused() {
    let row = #"{"id": "6F9619FF-8B86-4011-B42D-00C04FC964FF", "title": "A", "isDone": false}"#
    let data = Data(#"{"version": 1, "todos": [\#(row), \#(row)]}"#.utf8)
    #expect(
      Persistence.decode(data, from: "list.json")
        == .failure(PersistenceError("list.json is not a todo list: two todos share an id")))
  }

  @Test func savingIntoAMissingDirectoryFailsInOneLine() {
    let path = temporaryPath("no-such-directory") + "/list.json"
    guard case .failure(let error) = Persistence.save(Document(todos: []), to: path) else {
      Issue.record("saving into a missing directory succeeded")
      return
    }
    #expect(error == PersistenceError("cannot write \(path): No such file or directory"))
  }
}
