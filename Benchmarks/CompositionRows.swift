import Dripper

// MARK: - Features: a counter nested in Scopes, and a list of counters

struct Leaf: Dripper {
  struct State: Sendable, Identifiable {
    var id = 0
    var count = 0
  }
  enum Action: Sendable { case increase }

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count &+= 1
      return .none
    }
  }
}

/// A counter like ``Leaf`` with what real features hold: a setting and a dependency, which its
/// body's `Drip` captures.
struct Stepper: Dripper {
  struct State: Sendable { var count = 0 }
  enum Action: Sendable { case increase }

  let step: Int
  @Dependency(\.clock) var clock

  var body: some DripperOf<Self> {
    Drip { state, _ in
      state.count &+= step
      return .none
    }
  }
}

/// `Inner` wrapped in one more level of `Scope`.
struct Level<Inner: Dripper>: Dripper where Inner.State: Sendable {
  struct State: Sendable { var inner: Inner.State }
  enum Action: Sendable { case inner(Inner.Action) }

  let makeInner: @Sendable () -> Inner

  var body: some DripperOf<Self> {
    Scope(state: \.inner, action: CasePath(Action.inner) { if case .inner(let a) = $0 { a } else { nil } }) {
      makeInner()
    }
  }
}

struct List: Dripper {
  struct State: Sendable { var rows: IdentifiedArrayOf<Leaf.State> }
  enum Action: Sendable { case rows(IdentifiedAction<Int, Leaf.Action>) }

  var body: some DripperOf<Self> {
    EmptyDripper()
      .forEach(\.rows, action: CasePath(Action.rows) { if case .rows(let a) = $0 { a } else { nil } }) {
        Leaf()
      }
  }
}

/// A navigation stack of counters.
struct Stack: Dripper {
  struct State: Sendable { var path: StackState<Leaf.State> }
  enum Action: Sendable { case path(StackAction<Leaf.State, Leaf.Action>) }

  var body: some DripperOf<Self> {
    EmptyDripper()
      .forEach(\.path, action: CasePath(Action.path) { if case .path(let a) = $0 { a } else { nil } }) {
        Leaf()
      }
  }
}

/// A form with fields set both ways: by a plain action and by a binding.
struct BenchForm: Dripper {
  struct State: Sendable {
    var count = 0
    var text = ""
  }
  enum Action: BindableAction {
    case binding(BindingAction<State>)
    case setCount(Int)
    case setText(String)

    var binding: BindingAction<State>? {
      switch self {
      case .binding(let action): action
      default: nil
      }
    }
  }

  var body: some DripperOf<Self> {
    BindingDripper()
    Drip { state, action in
      switch action {
      case .setCount(let count): state.count = count
      case .setText(let text): state.text = text
      case .binding: break
      }
      return .none
    }
  }
}

/// Reduces `action` `n` times with `dripper`, without a Station: the cost of the reduction.
@inline(never)
func reduceLoop<D: Dripper>(_ dripper: D, _ state: inout D.State, _ action: D.Action, _ n: Int) {
  for _ in 0..<n { blackHole(dripper.reduce(into: &state, action: action)) }
}

func compositionRows(_ options: BenchmarkOptions) async -> [Row] {
  let group = "composition: `swift run -c release dripper-bench --filter composition`"
  let n = options.operations(2_000_000)
  var rows: [Row] = []

  // Scope: the same counter at depths 0, 1, 3 and 5.
  let leafRow = "Scope depth 0: the child's reduction alone"
  var leafState = Leaf.State()
  let leaf = await measure(options, operations: n) { reduceLoop(Leaf(), &leafState, .increase, n) }
  rows.append(Row(group: group, name: leafRow, nanoseconds: leaf))

  let one = Level { Leaf() }
  var oneState = Level<Leaf>.State(inner: Leaf.State())
  let depth1 = await measure(options, operations: n) { reduceLoop(one, &oneState, .inner(.increase), n) }

  let three = Level { Level { Level { Leaf() } } }
  var threeState = Level<Level<Level<Leaf>>>.State(inner: .init(inner: .init(inner: Leaf.State())))
  let depth3 = await measure(options, operations: n) {
    reduceLoop(three, &threeState, .inner(.inner(.inner(.increase))), n)
  }

  let five = Level { Level { Level { Level { Level { Leaf() } } } } }
  var fiveState = Level<Level<Level<Level<Level<Leaf>>>>>.State(
    inner: .init(inner: .init(inner: .init(inner: .init(inner: Leaf.State())))))
  let depth5 = await measure(options, operations: n) {
    reduceLoop(five, &fiveState, .inner(.inner(.inner(.inner(.inner(.increase))))), n)
  }
  for (depth, time) in [(1, depth1), (3, depth3), (5, depth5)] {
    let perLevel = (time - leaf) / Double(depth)
    rows.append(
      Row(
        group: group, name: "Scope depth \(depth): one child action", nanoseconds: time,
        note: "\(Report.format2(perLevel)) ns per level; target <= 25: \(perLevel <= 25 ? "met" : "MISSED")"))
  }

  // The same Scopes through a Station: what a pour into a composed feature costs. (A reduction
  // run through `any Dripper` instead of a specialized closure costs several hundred ns here.)
  let stationLeaf = await synchronousPours(options, initialState: Leaf.State(), action: .increase, Leaf())
  rows.append(Row(group: group, name: "Station, Scope depth 0: synchronous pours", nanoseconds: stationLeaf))
  let stationFive = await synchronousPours(
    options, initialState: fiveState, action: .inner(.inner(.inner(.inner(.inner(.increase))))), five)
  let perLevel = (stationFive - stationLeaf) / 5
  rows.append(
    Row(
      group: group, name: "Station, Scope depth 5: synchronous pours", nanoseconds: stationFive,
      note: "\(Report.format2(perLevel)) ns per level; target <= 25: \(perLevel <= 25 ? "met" : "MISSED")"))

  // Children that hold properties, as real ones do (a setting, a dependency).
  let stationStepper = await synchronousPours(
    options, initialState: Stepper.State(), action: .increase, Stepper(step: 1))
  rows.append(
    Row(
      group: group, name: "Station, a child with properties, depth 0: synchronous pours",
      nanoseconds: stationStepper))
  let fiveSteppers = Level { Level { Level { Level { Level { Stepper(step: 1) } } } } }
  let stationFiveSteppers = await synchronousPours(
    options,
    initialState: Level<Level<Level<Level<Level<Stepper>>>>>.State(
      inner: .init(inner: .init(inner: .init(inner: .init(inner: Stepper.State()))))),
    action: .inner(.inner(.inner(.inner(.inner(.increase))))), fiveSteppers)
  let stepperPerLevel = (stationFiveSteppers - stationStepper) / 5
  rows.append(
    Row(
      group: group, name: "Station, a child with properties, depth 5: synchronous pours",
      nanoseconds: stationFiveSteppers,
      note:
        "\(Report.format2(stepperPerLevel)) ns per level; target <= 25: \(stepperPerLevel <= 25 ? "met" : "MISSED")"
    ))

  // forEach: one element action in lists of 10, 1,000 and 100,000 rows, through a Station,
  // measured interleaved. These spread their actions over the list, so in the long one most reach
  // a row and a hash-table bucket that are not in cache (100,000 rows and their index are twice
  // the L2 of the machine we measure on): that is memory, not work. The same row every time
  // isolates the work, which does not grow with the list.
  let m = options.operations(1_000_000)
  func list(_ size: Int) -> StationOf<List> {
    Station(initialState: List.State(rows: IdentifiedArray((0..<size).map { Leaf.State(id: $0) }))) { List() }
  }
  let lists = [(10, list(10)), (1_000, list(1_000)), (100_000, list(100_000))]
  let hot = list(100_000)
  var bodies: [() async -> Void] = lists.map { size, station in
    {
      var last: PourTask?
      for index in 0..<m {
        last = station.pour(.rows(.element(id: (index &* 7919) % size, action: .increase)))
      }
      await last?.finish()
    }
  }
  bodies.append {
    var last: PourTask?
    for _ in 0..<m { last = hot.pour(.rows(.element(id: 50_000, action: .increase))) }
    await last?.finish()
  }
  let times = await measureInterleaved(options, operations: m, bodies)
  let smallRow = "forEach over 10 rows: one element action"
  rows.append(Row(group: group, name: smallRow, nanoseconds: times[0]))
  rows.append(
    Row(
      group: group, name: "forEach over 1000 rows: one element action", nanoseconds: times[1],
      baseline: smallRow))
  rows.append(
    Row(
      group: group, name: "forEach over 100000 rows: one element action", nanoseconds: times[2],
      baseline: smallRow, target: 1.5))
  rows.append(
    Row(
      group: group, name: "forEach over 100000 rows: the same element each time", nanoseconds: times[3],
      baseline: smallRow))

  // A stack element action at depth 10 against a forEach element action in a list of 10.
  let tenRows = list(10)
  let stack = Station(initialState: Stack.State(path: StackState((0..<10).map { Leaf.State(id: $0) }))) {
    Stack()
  }
  let navigationTimes = await measureInterleaved(
    options, operations: m,
    [
      {
        var last: PourTask?
        for _ in 0..<m { last = tenRows.pour(.rows(.element(id: 9, action: .increase))) }
        await last?.finish()
      },
      {
        var last: PourTask?
        for _ in 0..<m { last = stack.pour(.path(.element(id: 9, action: .increase))) }
        await last?.finish()
      },
    ])
  let listRow = "forEach over 10 rows: the last element's action"
  rows.append(Row(group: group, name: listRow, nanoseconds: navigationTimes[0]))
  rows.append(
    Row(
      group: group, name: "a stack 10 deep: the top element's action", nanoseconds: navigationTimes[1],
      baseline: listRow, target: 1.5, bound: 2.5))

  // A binding against the plain action that sets the same field, through a Station, measured
  // interleaved: each pours one action made beforehand.
  let form = Station(initialState: BenchForm.State()) { BenchForm() }
  // The text is short enough to be stored in the string itself, as a typical query is: a
  // binding of a `String` carries one object (the key path and the value together), where a
  // binding of a small plain value carries none.
  let formActions: [BenchForm.Action] = [
    .setCount(7), .set(\.count, 7), .setText("milk"), .set(\.text, "milk"),
  ]
  let formTimes = await measureInterleaved(
    options, operations: m,
    formActions.map { action in
      {
        var last: PourTask?
        for _ in 0..<m { last = form.pour(action) }
        await last?.finish()
      }
    })
  for (index, field) in ["field", "text field"].enumerated() {
    let plainRow = "a plain action that sets a \(field): synchronous pours"
    rows.append(Row(group: group, name: plainRow, nanoseconds: formTimes[2 * index]))
    rows.append(
      Row(
        group: group, name: "a binding action that sets the same \(field): synchronous pours",
        nanoseconds: formTimes[2 * index + 1], baseline: plainRow, target: 1.5, bound: 2.5))
  }

  // Case paths: extraction written as a pattern match is a closure call; a case path made from the
  // case alone (`CasePath(Action.inner)`) reflects on each extraction.
  let actions = (0..<1_000).map { Level<Leaf>.Action.inner($0.isMultiple(of: 2) ? .increase : .increase) }
  let casePath = CasePath(Level<Leaf>.Action.inner) { if case .inner(let a) = $0 { a } else { nil } }
  let direct = await measure(options, operations: n) {
    for index in 0..<n {
      if case .inner(let action) = actions[index % 1_000] { blackHole(action) }
    }
  }
  rows.append(Row(group: group, name: "case match written by hand", nanoseconds: direct))
  let extracted = await measure(options, operations: n) {
    for index in 0..<n { blackHole(casePath.extract(actions[index % 1_000])) }
  }
  rows.append(
    Row(
      group: group, name: "CasePath.extract", nanoseconds: extracted, baseline: "case match written by hand"))
  let reflective = CasePath(Level<Leaf>.Action.inner)
  let mirrored = await measure(options, operations: n / 10) {
    for index in 0..<(n / 10) { blackHole(reflective.extract(actions[index % 1_000])) }
  }
  rows.append(
    Row(
      group: group, name: "CasePath(Action.inner).extract, by reflection", nanoseconds: mirrored,
      baseline: "case match written by hand"))
  return rows
}

/// Pours `action` into a Station of `dripper` a million times, then waits for the last.
func synchronousPours<D: Dripper>(
  _ options: BenchmarkOptions, initialState: D.State, action: D.Action,
  _ dripper: @escaping @autoclosure () -> D
) async -> Double {
  let station = Station(initialState: initialState, dripper: dripper)
  let m = options.operations(1_000_000)
  return await measure(options, operations: m) {
    var last: PourTask?
    for _ in 0..<m { last = station.pour(action) }
    await last?.finish()
  }
}
