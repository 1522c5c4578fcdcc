import Testing

@testable import Dripper

/// The thread's reduction depth: what a presentation raises around its child's reduction and
/// `isPresented` reads.
@Suite struct ReductionContextTests {
  @Test func aReductionStartsAtOneAndEachPresentationAddsOne() {
    #expect(ReductionContext.depth == 0)
    var seen: [Int] = []
    ReductionContext.reducing(with: nil) {
      seen.append(ReductionContext.depth)
      DependencyValues.presenting {
        seen.append(ReductionContext.depth)
        DependencyValues.presenting { seen.append(ReductionContext.depth) }
        seen.append(ReductionContext.depth)
      }
      seen.append(ReductionContext.depth)
    }
    #expect(seen == [1, 2, 3, 2, 1])
    #expect(ReductionContext.depth == 0)
  }

  @Test func aStationsValuesArePresentedInsideAPresentationOnly() {
    var values = DependencyValues()
    values.followsReductions = true
    var seen: [Bool] = []
    ReductionContext.reducing(with: nil) {
      seen.append(values.isPresented)
      DependencyValues.presenting {
        seen.append(values.isPresented)
        // What an effect made here keeps: presented, for good.
        let captured = values.captured
        seen.append(captured.isPresented)
      }
    }
    seen.append(values.isPresented)
    #expect(seen == [false, true, true, false])
  }

  @Test func valuesThatDoNotFollowReductionsIgnoreTheDepth() {
    let values = DependencyValues()
    ReductionContext.reducing(with: nil) {
      DependencyValues.presenting { #expect(!values.isPresented) }
    }
  }

  @Test func aPresentationWhoseChildReturnsNothingRunsItOnce() {
    // A result that is itself optional: `nil` from the child is not "outside a reduction".
    var runs = 0
    ReductionContext.reducing(with: nil) {
      let result: Int? = DependencyValues.presenting {
        runs += 1
        return nil
      }
      #expect(result == nil)
    }
    #expect(runs == 1)
  }

  @Test func outsideAReductionAPresentationBindsTheValues() {
    // A dripper reduced directly, with no Station: `presenting` binds `isPresented` instead.
    let presented = DependencyValues.presenting { DependencyValues.current.isPresented }
    #expect(presented)
    #expect(ReductionContext.depth == 0)
  }
}

/// The reduction's dependencies on the thread: what `DependencyValues.current` returns first.
@Suite struct ReductionContextDependencyTests {
  /// Values whose `unimplemented` dependency reads `number`, boxed as a Station holds them.
  func values(_ number: Int) -> DependencyBox {
    var values = DependencyValues()
    values.unimplemented = number
    return DependencyBox(values)
  }

  @Test func aReductionsValuesAreCurrentInsideItAndGoneAfter() {
    var seen: [Int] = []
    withDependencies {
      $0.unimplemented = 1
    } operation: {
      ReductionContext.reducing(with: values(2)) {
        seen.append(DependencyValues.current.unimplemented)
        ReductionContext.reducing(with: values(3)) { seen.append(DependencyValues.current.unimplemented) }
        seen.append(DependencyValues.current.unimplemented)
      }
      seen.append(DependencyValues.current.unimplemented)
    }
    #expect(seen == [2, 3, 2, 1])
    #expect(ReductionContext.dependencies == nil)
  }

  @Test func valuesBoundInsideAReductionWinAndComeBackAfter() {
    var seen: [Int] = []
    ReductionContext.reducing(with: values(2)) {
      withDependencies {
        $0.unimplemented += 10
      } operation: {
        seen.append(DependencyValues.current.unimplemented)
        // A presentation inside still sees them, one level deeper.
        DependencyValues.presenting {
          seen.append(DependencyValues.current.unimplemented)
          seen.append(ReductionContext.depth)
        }
      }
      seen.append(DependencyValues.current.unimplemented)
    }
    #expect(seen == [12, 12, 2, 2])
  }

  @Test func aTaskStartedInsideBoundValuesInheritsThem() async {
    var task: Task<Int, Never>?
    ReductionContext.reducing(with: values(2)) {
      withDependencies {
        $0.unimplemented = 7
      } operation: {
        task = Task { DependencyValues.current.unimplemented }
      }
    }
    #expect(await task?.value == 7)
  }

  @Test func aStationsReductionsAndEffectsSeeItsValuesWhateverThePouringTaskHas() async {
    let station = Station(initialState: [Int]()) {
      Drip { (seen: inout [Int], read: Int?) -> Effect<Int?> in
        if let read {
          seen.append(read)
          return .none
        }
        @Dependency(\.unimplemented) var number
        seen.append(number)
        return .run { pour in
          @Dependency(\.unimplemented) var number
          await pour(number)
        }
      }
    } withDependencies: {
      $0.unimplemented = 5
    }
    // Poured and awaited from a task whose own values differ: the awaiting task drains the
    // mailbox itself, and the reduction and the effect still see the Station's values.
    await withDependencies {
      $0.unimplemented = 9
    } operation: {
      await station.pour(nil).finish()
    }
    #expect(await station.state == [5, 5])
  }
}
