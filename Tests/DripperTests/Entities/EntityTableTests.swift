import Foundation
import Testing

@testable import Dripper

/// Two related entity types, normalized: todos refer to their list by id.
struct TodoList: Identifiable, Equatable, Codable, Sendable {
  var id: Int
  var name: String
}

struct Todo: Identifiable, Equatable, Codable, Sendable {
  var id: Int
  var listID: Int
  var title: String
  var isDone = false
}

@Suite struct EntityTableTests {
  private var todos: EntityTable<Todo> {
    EntityTable([
      Todo(id: 1, listID: 10, title: "milk"), Todo(id: 2, listID: 20, title: "nails"),
      Todo(id: 3, listID: 10, title: "eggs"),
    ]).indexed(by: \.listID)
  }

  @Test func entitiesAreFoundByIDAndKeepTheirOrder() {
    var table = todos
    #expect(table.ids == [1, 2, 3])
    #expect(table[id: 2]?.title == "nails")
    table[id: 2]?.title = "screws"
    #expect(table.map(\.title) == ["milk", "screws", "eggs"])
    let inserted = table.insert(Todo(id: 2, listID: 0, title: "duplicate"))
    #expect(!inserted)
    table.upsert(Todo(id: 1, listID: 10, title: "oat milk"))
    table.upsert(Todo(id: 4, listID: 30, title: "soap"))
    #expect(table.map(\.title) == ["oat milk", "screws", "eggs", "soap"])
    let removed = table.remove(id: 3)
    #expect(removed?.title == "eggs")
    #expect(table.ids == [1, 2, 4])
  }

  @Test func theIndexFollowsEveryChangeIncludingAChangeOfKey() {
    var table = todos
    #expect(table.ids(where: \.listID, equals: 10) == [1, 3])
    table[id: 3]?.listID = 20
    #expect(table.ids(where: \.listID, equals: 10) == [1])
    #expect(table.ids(where: \.listID, equals: 20) == [2, 3])
    table.insert(Todo(id: 0, listID: 10, title: "bread"))
    table[id: 1] = nil
    table.removeAll { $0.id == 2 }
    table.upsert(Todo(id: 7, listID: 20, title: "glue"))
    #expect(table.ids(where: \.listID, equals: 10) == [0])
    #expect(table.entities(where: \.listID, equals: 20).map(\.title) == ["eggs", "glue"])
    #expect(table.ids(where: \.listID, equals: 99) == [])
  }

  @Test func anUnindexedKeyIsAnsweredByAScan() {
    let table = todos
    #expect(table.ids(where: \.title, equals: "eggs") == [3])
    #expect(table.indexed(by: \.title).ids(where: \.title, equals: "eggs") == [3])
  }

  @Test func changesSayWhatHappenedToEachIDInAll() {
    var table = todos
    table.insert(Todo(id: 9, listID: 0, title: "unrecorded"))
    #expect(table.changes.isEmpty)

    table.beginReduction()
    table.insert(Todo(id: 4, listID: 10, title: "inserted, then changed"))
    table[id: 4]?.isDone = true
    table.insert(Todo(id: 5, listID: 10, title: "inserted, then removed"))
    table.remove(id: 5)
    table[id: 1]?.isDone = true
    table[id: 2]?.isDone = true
    table.remove(id: 2)
    table.remove(id: 3)
    table.insert(Todo(id: 3, listID: 10, title: "removed, then inserted"))
    #expect(table.changes.inserted == [4])
    #expect(table.changes.updated == [1, 3])
    #expect(table.changes.removed == [2])
    #expect(table.changes.contains(4) && !table.changes.contains(5))

    let first = table.changes
    table.beginReduction()
    #expect(table.changes.isEmpty)
    table[id: 1]?.title = "again"
    table.beginReduction()
    table[id: 1]?.title = "and again"
    #expect(table.changes.updated == [1])
    #expect(table.changes != first)
  }

  @Test func equalityCodingAndDumpsSeeOnlyTheEntities() throws {
    var recorded = todos
    recorded.beginReduction()
    recorded[id: 1]?.isDone = true
    var plain = EntityTable<Todo>(todos)
    plain[id: 1]?.isDone = true
    #expect(recorded == plain)
    #expect(Dump.line(recorded) == Dump.line(plain.entities))
    let decoded = try roundTripped(recorded)
    #expect(decoded == recorded)
    #expect(decoded.ids(where: \.listID, equals: 10) == [1, 3])
  }
}

/// A feature over two tables, as the "Normalizing state" article has it.
struct Lists: Dripper {
  struct State: Equatable, Sendable {
    var lists: EntityTable<TodoList> = [
      TodoList(id: 10, name: "Groceries"), TodoList(id: 20, name: "Hardware"),
    ]
    var todos = EntityTable<Todo>().indexed(by: \.listID)
  }
  enum Action: Sendable {
    case add(Todo)
    case toggle(Int)
    case deleteList(Int)
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .add(let todo): state.todos.insert(todo)
      case .toggle(let id): state.todos[id: id]?.isDone.toggle()
      case .deleteList(let id):
        state.lists.remove(id: id)
        for todo in state.todos.ids(where: \.listID, equals: id) { state.todos.remove(id: todo) }
      }
      return .none
    }
    .tracksChanges(of: \.todos)
  }
}

private func roundTripped<Value: Codable>(_ value: Value) throws -> Value {
  try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value))
}
