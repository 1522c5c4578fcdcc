// What UsingDependencies.md's snippets leave out. Compiled with them by
// .ci/docs-snippets.sh.
import Dripper

struct Item: Equatable, Sendable { var name: String }
func fetchItems() async throws -> [Item] { [] }

func fetchFact(_ n: Int) async throws -> String { "\(n) is a number" }
