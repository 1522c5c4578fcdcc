import Dripper
import Testing

/// Issue 53: a case path from its case alone, one line a case.
@Suite struct CasePathReflectionTests {
  enum Action: Equatable, Sendable {
    case first(Int)
    case second(Int)
    case named(String)
    case pair(id: Int, text: String)
    case labeled(players: [String])
    case dismiss
    case maybe(Int?)
    case otherMaybe(Int?)
    indirect case nested(Action)
  }

  struct Failure: Error, Equatable {
    let code: Int
  }

  /// A case whose payload is an existential: `Equatable` is left out, as TCA's would be.
  enum Response: Sendable {
    case failed(any Error)
    case cancelled(any Error)
    case value(any Sendable)
  }

  /// One labeled value (`case labeled(players: [String])`): a `Mirror` shows it as a tuple of one
  /// element, which the extraction failed to cast before.
  @Test func aCaseWithOneLabeledValueIsExtracted() {
    let labeled = CasePath<Action, [String]>(Action.labeled)
    for _ in 0..<2 {
      #expect(labeled.extract(.labeled(players: ["x", "o"])) == ["x", "o"])
      #expect(labeled.extract(.named("x")) == nil)
    }
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

  @Test func optionalPayloadsIncludingNil() {
    let maybe = CasePath<Action, Int?>(Action.maybe)
    for _ in 0..<2 {
      #expect(maybe.extract(.maybe(nil)) == .some(nil))
      #expect(maybe.extract(.maybe(3)) == .some(3))
      #expect(maybe.extract(.otherMaybe(3)) == nil)
      #expect(maybe.extract(.otherMaybe(nil)) == nil)
      #expect(maybe.extract(.first(3)) == nil)
    }
    // Learned on a nil payload first.
    let other = CasePath<Action, Int?>(Action.otherMaybe)
    #expect(other.extract(.otherMaybe(nil)) == .some(nil))
    #expect(other.extract(.maybe(nil)) == nil)
  }

  @Test func existentialPayloads() {
    let failed = CasePath<Response, any Error>(Response.failed)
    let cancelled = CasePath<Response, any Error>(Response.cancelled)
    for _ in 0..<2 {
      #expect((failed.extract(.failed(Failure(code: 1))) as? Failure) == Failure(code: 1))
      #expect(failed.extract(.cancelled(Failure(code: 2))) == nil)
      #expect((cancelled.extract(.cancelled(Failure(code: 2))) as? Failure) == Failure(code: 2))
      #expect(failed.extract(.value(1)) == nil)
    }
    let value = CasePath<Response, any Sendable>(Response.value)
    #expect(value.extract(.value("x")) as? String == "x")
    #expect(value.extract(.failed(Failure(code: 1))) == nil)
  }

  @Test func indirectCases() {
    let nested = CasePath<Action, Action>(Action.nested)
    #expect(nested.extract(.nested(.first(1))) == .first(1))
    #expect(nested.extract(.first(1)) == nil)
  }
}
