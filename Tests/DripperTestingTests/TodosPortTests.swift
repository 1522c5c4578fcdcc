import Dripper
import DripperTesting
import Foundation
import Testing

// TCA's Todos example (Examples/Todos), written again as Dripper features, with its ten tests
// ported assertion for assertion: rows bound to the view, a completion that sorts the list a
// second later unless another comes first (cancelInFlight), moves and deletes through a filter.
// Offsets are `[Int]`, as the port keeps Foundation's `IndexSet` out, and the edit mode is an
// enum of its own, as SwiftUI's `EditMode` is not here.

/// One row, as the example's `Todo`: every field bound to the view.
struct TodoExample: Dripper {
  struct State: Equatable, Identifiable, Sendable {
    var description = ""
    let id: UUID
    var isComplete = false
  }
  enum Action: BindableAction, Equatable {
    case binding(BindingAction<State>)

    var binding: BindingAction<State>? {
      if case .binding(let action) = self { action } else { nil }
    }
  }
  var body: some DripperOf<Self> { BindingDripper() }
}

/// The list, as the example's `Todos`.
struct TodosExample: Dripper {
  enum EditMode: Equatable, Sendable { case inactive, active }
  enum Filter: Equatable, Sendable { case all, active, completed }

  struct State: Equatable, Sendable {
    var editMode = EditMode.inactive
    var filter = Filter.all
    var todos: IdentifiedArrayOf<TodoExample.State> = []

    var filteredTodos: [TodoExample.State] {
      switch filter {
      case .active: todos.filter { !$0.isComplete }
      case .all: Array(todos)
      case .completed: todos.filter(\.isComplete)
      }
    }
  }

  enum Action: BindableAction, Equatable {
    case addTodoButtonTapped
    case binding(BindingAction<State>)
    case clearCompletedButtonTapped
    case delete([Int])
    case move([Int], Int)
    case sortCompletedTodos
    case todos(IdentifiedActionOf<TodoExample>)

    var binding: BindingAction<State>? {
      if case .binding(let action) = self { action } else { nil }
    }
  }

  @Dependency(\.clock) var clock
  @Dependency(\.uuid) var uuid
  private enum CancelID: Hashable, Sendable { case todoCompletion }

  var body: some DripperOf<Self> {
    BindingDripper()
    Drip { state, action in
      switch action {
      case .addTodoButtonTapped:
        state.todos.insert(TodoExample.State(id: uuid()), at: 0)
        return .none

      case .binding:
        return .none

      case .clearCompletedButtonTapped:
        state.todos.removeAll(where: \.isComplete)
        return .none

      case .delete(let offsets):
        let filteredTodos = state.filteredTodos
        for offset in offsets {
          state.todos.remove(id: filteredTodos[offset].id)
        }
        return .none

      case .move(var source, var destination):
        if state.filter == .completed {
          let filteredTodos = state.filteredTodos
          source = source.compactMap { state.todos.index(id: filteredTodos[$0].id) }
          destination =
            (destination < filteredTodos.endIndex
              ? state.todos.index(id: filteredTodos[destination].id)
              : state.todos.endIndex)
            ?? destination
        }
        state.todos.move(fromOffsets: source, toOffset: destination)
        return .run { pour in
          try await clock.sleep(for: .milliseconds(100))
          await pour(.sortCompletedTodos)
        }

      case .sortCompletedTodos:
        state.todos.sort { $1.isComplete && !$0.isComplete }
        return .none

      case .todos(.element(id: _, action: .binding(\.isComplete))):
        return .run { pour in
          try await clock.sleep(for: .seconds(1))
          await pour(.sortCompletedTodos)
        }
        .cancellable(id: CancelID.todoCompletion, cancelInFlight: true)

      case .todos:
        return .none
      }
    }
    .forEach(\.todos, action: .todos) { TodoExample() }
  }
}

extension CasePath<TodosExample.Action, IdentifiedActionOf<TodoExample>> {
  static var todos: Self { Self(TodosExample.Action.todos) }
}

/// Rows with empty descriptions, complete where `complete` says.
private func todos(_ complete: Bool...) -> IdentifiedArrayOf<TodoExample.State> {
  IdentifiedArrayOf(
    complete.enumerated().map { TodoExample.State(id: UUID(UInt64($0.offset)), isComplete: $0.element) })
}

/// TCA's `\.todos[id: id].binding.isComplete` and `.description`.
private func setComplete(_ id: UUID, _ value: Bool) -> TodosExample.Action {
  .todos(.element(id: id, action: .binding(.set(\.isComplete, value))))
}
private func setDescription(_ id: UUID, _ value: String) -> TodosExample.Action {
  .todos(.element(id: id, action: .binding(.set(\.description, value))))
}

/// A list of `todos` whose effects sleep on `clock`.
private func todosStation(
  _ todos: IdentifiedArrayOf<TodoExample.State>, on clock: TestClock
) -> TestStation<TodosExample.State, TodosExample.Action> {
  TestStation(initialState: TodosExample.State(todos: todos)) {
    TodosExample()
  } withDependencies: {
    $0.clock = clock
  }
}

@Suite struct TodosExampleTests {
  @Test func addTodo() async {
    let store = TestStation(initialState: TodosExample.State()) {
      TodosExample()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    await store.pour(.addTodoButtonTapped) {
      $0.todos.insert(TodoExample.State(description: "", id: UUID(0), isComplete: false), at: 0)
    }
    await store.pour(.addTodoButtonTapped) {
      $0.todos = [
        TodoExample.State(description: "", id: UUID(1), isComplete: false),
        TodoExample.State(description: "", id: UUID(0), isComplete: false),
      ]
    }
  }

  @Test func editTodo() async {
    let store = TestStation(initialState: TodosExample.State(todos: todos(false))) { TodosExample() }

    await store.pour(setDescription(UUID(0), "Learn Composable Architecture")) {
      $0.todos[id: UUID(0)]?.description = "Learn Composable Architecture"
    }
  }

  @Test func completeTodo() async {
    let clock = TestClock()
    let store = todosStation(todos(false, false), on: clock)

    await store.pour(setComplete(UUID(0), true)) {
      $0.todos[id: UUID(0)]?.isComplete = true
    }
    await clock.advance(by: .seconds(1))
    await store.receive(.sortCompletedTodos) {
      $0.todos = [$0.todos[1], $0.todos[0]]
    }
  }

  @Test func completeTodoDebounces() async {
    let clock = TestClock()
    let store = todosStation(todos(false, false), on: clock)

    await store.pour(setComplete(UUID(0), true)) {
      $0.todos[id: UUID(0)]?.isComplete = true
    }
    await clock.advance(by: .milliseconds(500))
    await store.pour(setComplete(UUID(0), false)) {
      $0.todos[id: UUID(0)]?.isComplete = false
    }
    await clock.advance(by: .seconds(1))
    await store.receive(.sortCompletedTodos)
  }

  @Test func clearCompleted() async {
    let store = TestStation(initialState: TodosExample.State(todos: todos(false, true))) { TodosExample() }

    await store.pour(.clearCompletedButtonTapped) {
      $0.todos = [$0.todos[0]]
    }
  }

  @Test func delete() async {
    let store = TestStation(initialState: TodosExample.State(todos: todos(false, false, false))) {
      TodosExample()
    }

    await store.pour(.delete([1])) {
      $0.todos = [$0.todos[0], $0.todos[2]]
    }
  }

  @Test func deleteWhileFiltered() async {
    let store = TestStation(
      initialState: TodosExample.State(filter: .completed, todos: todos(false, false, true))
    ) {
      TodosExample()
    }

    await store.pour(.delete([0])) {
      $0.todos = [$0.todos[0], $0.todos[1]]
    }
  }

  @Test func editModeMoving() async {
    let clock = TestClock()
    let store = todosStation(todos(false, false, false), on: clock)

    await store.pour(.binding(.set(\.editMode, .active))) {
      $0.editMode = .active
    }
    await store.pour(.move([0], 2)) {
      $0.todos = [$0.todos[1], $0.todos[0], $0.todos[2]]
    }
    await clock.advance(by: .milliseconds(100))
    await store.receive(.sortCompletedTodos)
  }

  @Test func editModeMovingWithFilter() async {
    let clock = TestClock()
    let store = TestStation(initialState: TodosExample.State(todos: todos(false, false, true, true))) {
      TodosExample()
    } withDependencies: {
      $0.clock = clock
      $0.uuid = .incrementing
    }

    await store.pour(.binding(.set(\.editMode, .active))) {
      $0.editMode = .active
    }
    await store.pour(.binding(.set(\.filter, .completed))) {
      $0.filter = .completed
    }
    await store.pour(.move([0], 2)) {
      $0.todos = [$0.todos[0], $0.todos[1], $0.todos[3], $0.todos[2]]
    }
    await clock.advance(by: .milliseconds(100))
    await store.receive(.sortCompletedTodos)
  }

  @Test func filteredEdit() async {
    let store = TestStation(initialState: TodosExample.State(todos: todos(false, true))) { TodosExample() }

    await store.pour(.binding(.set(\.filter, .completed))) {
      $0.filter = .completed
    }
    await store.pour(setDescription(UUID(1), "Did this already")) {
      $0.todos[id: UUID(1)]?.description = "Did this already"
    }
  }
}
