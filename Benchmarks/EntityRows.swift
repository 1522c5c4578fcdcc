import Dripper

// MARK: - A normalized state: todos in a table indexed by their list

struct BenchTodo: Identifiable, Sendable {
  var id: Int
  var listID: Int
  var isDone = false
}

struct BenchTodos: Dripper {
  struct State: Sendable {
    var todos = EntityTable<BenchTodo>().indexed(by: \.listID)
  }
  enum Action: Sendable { case toggle(Int) }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .toggle(let id): state.todos[id: id]?.isDone.toggle()
      }
      return .none
    }
    .tracksChanges(of: \.todos)
  }
}

func entityRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "entities: `swift run -c release dripper-bench --filter entities`"
  let m = options.operations(1_000_000)
  func table(_ size: Int) -> StationOf<BenchTodos> {
    var state = BenchTodos.State()
    state.todos.insert(contentsOf: (0..<size).map { BenchTodo(id: $0, listID: $0 % 100) })
    return Station(initialState: state) { BenchTodos() }
  }
  // The same ten entities in both tables isolate the work, which must not grow with the table;
  // spread over the whole table, most updates also reach memory that is not in cache.
  let small = table(10)
  let large = table(100_000)
  let spread = table(100_000)
  func updates(_ station: StationOf<BenchTodos>, over size: Int) -> () async -> Void {
    {
      var last: PourTask?
      for index in 0..<m { last = station.pour(.toggle((index &* 7919) % size)) }
      await last?.finish()
    }
  }
  let times = await measureInterleaved(
    options, operations: m,
    [updates(small, over: 10), updates(large, over: 10), updates(spread, over: 100_000)])
  let smallRow = "EntityTable of 10, indexed, changes tracked: update one entity"
  return [
    Row(group: group, name: smallRow, nanoseconds: times[0]),
    Row(
      group: group, name: "EntityTable of 100000: update one of the same ten entities", nanoseconds: times[1],
      baseline: smallRow, target: 1.5),
    Row(
      group: group, name: "EntityTable of 100000: update entities spread over the table",
      nanoseconds: times[2],
      baseline: smallRow),
  ]
}
