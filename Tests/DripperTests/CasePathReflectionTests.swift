import Dripper
import Testing

/// Issue 53: a case path from its case alone, one line a case.
@Suite struct CasePathReflectionTests {
  enum Action: Equatable, Sendable {
    case first(Int)
    case second(Int)
    case named(String)
    case pair(id: Int, text: String)
    case dismiss
  }

  @Test func casesWithTheSamePayloadTypeAreToldApart() {
    let first = CasePath<Action, Int>(Action.first)
    let second = CasePath<Action, Int>(Action.second)
    for _ in 0..<2 {  // before and after the case's name is known
      #expect(first.extract(.first(1)) == 1)
      #expect(first.extract(.second(2)) == nil)
      #expect(second.extract(.second(2)) == 2)
      #expect(second.extract(.first(1)) == nil)
      #expect(first.extract(.named("x")) == nil)
    }
    #expect(first.embed(3) == .first(3))
  }

  @Test func tuplePayloadsAndCasesWithoutPayload() {
    let pair = CasePath<Action, (id: Int, text: String)>(Action.pair)
    #expect(pair.extract(.pair(id: 1, text: "a")).map { "\($0.id)\($0.text)" } == "1a")
    #expect(pair.extract(.first(1)) == nil)
    let dismiss = CasePath<Action, Void>({ _ in .dismiss })
    #expect(dismiss.extract(.dismiss) != nil)
    #expect(dismiss.extract(.first(0)) == nil)
  }
}
