import Testing

@testable import Dripper

/// Appends its name to the state, and sends its name as an effect when the action asks for it.
struct Append: Dripper {
  let name: String

  var body: some Dripper<[String], String> {
    Drip { state, action in
      state.append(name)
      return action == "send" ? .send("sent by \(name)") : .none
    }
  }
}

@Suite struct DripperBuilderTests {
  private func reduce(_ dripper: some Dripper<[String], String>, _ action: String = "go") async -> [String] {
    let station = Station(initialState: [String]()) { dripper }
    await station.pour(action).finish()
    return await station.state
  }

  @Test func drippersRunInOrderEachSeeingThePreviousState() async {
    struct Body: Dripper {
      var body: some Dripper<[String], String> {
        Append(name: "a")
        Drip { state, _ in
          state.append("saw \(state.count)")
          return .none
        }
        Append(name: "c")
      }
    }
    #expect(await reduce(Body()) == ["a", "saw 1", "c"])
  }

  @Test func theirEffectsAreMerged() async {
    struct Body: Dripper {
      var body: some Dripper<[String], String> {
        Append(name: "a")
        Append(name: "b")
      }
    }
    let state = await reduce(Body(), "send")
    // Both sends are reduced, in order, each by the whole body again.
    #expect(state == ["a", "b", "a", "b", "a", "b"])
  }

  @Test(arguments: [true, false])
  func ifWithoutElse(_ include: Bool) async {
    struct Body: Dripper {
      let include: Bool
      var body: some Dripper<[String], String> {
        Append(name: "always")
        if include { Append(name: "sometimes") }
      }
    }
    #expect(await reduce(Body(include: include)) == (include ? ["always", "sometimes"] : ["always"]))
  }

  @Test(arguments: [0, 1, 2])
  func ifElseAndSwitch(_ branch: Int) async {
    struct Body: Dripper {
      let branch: Int
      var body: some Dripper<[String], String> {
        if branch == 0 {
          Append(name: "if")
        } else {
          Append(name: "else")
        }
        switch branch {
        case 0: Append(name: "zero")
        case 1: Append(name: "one")
        default: EmptyDripper()
        }
      }
    }
    let expected = [["if", "zero"], ["else", "one"], ["else"]][branch]
    #expect(await reduce(Body(branch: branch)) == expected)
  }

  @Test func forLoopsRunEachDripper() async {
    struct Body: Dripper {
      var body: some Dripper<[String], String> {
        for name in ["x", "y", "z"] { Append(name: name) }
      }
    }
    #expect(await reduce(Body()) == ["x", "y", "z"])
  }

  @Test func availabilityChecksWork() async {
    struct Body: Dripper {
      var body: some Dripper<[String], String> {
        if #available(macOS 15, iOS 18, *) {
          Append(name: "available")
        }
      }
    }
    #expect(await reduce(Body()) == ["available"])
  }

  @Test func anEmptyBodyDoesNothing() async {
    struct Body: Dripper {
      var body: some Dripper<[String], String> {}
    }
    #expect(await reduce(Body()) == [])
  }

  @Test func aLeafImplementsReduce() async {
    struct Leaf: Dripper {
      func reduce(into state: inout [String], action: String) -> Effect<String> {
        state.append("leaf \(action)")
        return .none
      }
    }
    #expect(await reduce(Leaf()) == ["leaf go"])
  }
}
