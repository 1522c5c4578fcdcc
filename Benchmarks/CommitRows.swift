import Dripper

/// The state of the commit rows: a counter.
struct CommitCounter: Sendable { var count = 0 }

func commitRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "commit: `swift run -c release dripper-bench --filter commit`"
  let m = options.operations(1_000_000)
  let actions = Station(initialState: BenchCounter.State()) { BenchCounter() }
  let commits = CommitStation(initialState: CommitCounter())
  let times = await measureInterleaved(
    options, operations: m,
    [
      {
        var last: PourTask?
        for _ in 0..<m { last = actions.pour(.increase) }
        await last?.finish()
      },
      {
        var last: PourTask?
        for _ in 0..<m { last = commits.commit("increase") { $0.count &+= 1 } }
        await last?.finish()
      },
    ])
  let actionRow = "an action that increases a counter: synchronous pours"
  return [
    Row(group: group, name: actionRow, nanoseconds: times[0]),
    Row(
      group: group, name: "a commit that increases a counter: synchronous commits", nanoseconds: times[1],
      baseline: actionRow),
  ]
}
