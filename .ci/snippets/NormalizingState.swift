// What NormalizingState.md's snippets leave out: the Station they watch and
// the functions they call. Compiled with them by .ci/docs-snippets.sh.
import Dripper

let station = Station(initialState: Lists.State()) { Lists() }
func render(_ rows: [ListRow]) {}
func redraw(_ id: Todo.ID) {}
