// What ObservingAStation.md's snippets leave out: the Station they watch and
// the functions they call. Compiled with them by .ci/docs-snippets.sh.
import Dripper

struct Todo: Equatable, Sendable { var isDone = false }

struct Todos: Dripper {
  struct State: Equatable, Sendable {
    var count = 0
    var query = ""
    var todos: [Todo] = []
  }
  enum Action: Sendable { case add }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Counter: Dripper {
  struct State: Equatable, Sendable { var count = 0 }
  enum Action: Sendable { case increase }
  var body: some DripperOf<Self> { EmptyDripper() }
}

let station = Station(initialState: Todos.State()) { Todos() }
func render(_ state: Todos.State) {}
func search(_ query: String) {}
