// What GettingStarted.md's last snippet leaves out: the Station made in the
// one before. Compiled with them by .ci/docs-snippets.sh.
import Dripper

let station = Station(initialState: Counter.State()) { Counter() }
