import Testing

@testable import Dripper

/// The thread's reduction depth: what a presentation raises around its child's reduction and
/// `isPresented` reads.
@Suite struct ReductionDepthTests {
  @Test func aReductionStartsAtOneAndEachPresentationAddsOne() {
    #expect(ReductionDepth.current() == 0)
    var seen: [Int] = []
    ReductionDepth.reducing {
      seen.append(ReductionDepth.current())
      DependencyValues.presenting {
        seen.append(ReductionDepth.current())
        DependencyValues.presenting { seen.append(ReductionDepth.current()) }
        seen.append(ReductionDepth.current())
      }
      seen.append(ReductionDepth.current())
    }
    #expect(seen == [1, 2, 3, 2, 1])
    #expect(ReductionDepth.current() == 0)
  }

  @Test func aStationsValuesArePresentedInsideAPresentationOnly() {
    var values = DependencyValues()
    values.followsReductions = true
    var seen: [Bool] = []
    ReductionDepth.reducing {
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
    ReductionDepth.reducing {
      DependencyValues.presenting { #expect(!values.isPresented) }
    }
  }

  @Test func outsideAReductionAPresentationBindsTheValues() {
    // A dripper reduced directly, with no Station: `presenting` binds `isPresented` instead.
    let presented = DependencyValues.presenting { DependencyValues.current.isPresented }
    #expect(presented)
    #expect(ReductionDepth.current() == 0)
  }
}
