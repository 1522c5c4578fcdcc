import Dripper
import DripperTesting
import Testing

/// Issue 53: a dependency client written without macros, as `@DependencyClient` writes it: every
/// endpoint unimplemented — named — until a test overrides it. One line per endpoint more than
/// TCA's macro: its default.
struct TriviaClient: Sendable {
  var fact: @Sendable (Int) async throws -> String = unimplemented("TriviaClient.fact")
  var favorite: @Sendable () async -> Int = unimplemented("TriviaClient.favorite", placeholder: 0)
  var save: @Sendable (Int) async throws -> Void = unimplemented("TriviaClient.save")
  var count: @Sendable () -> Int = unimplemented("TriviaClient.count", placeholder: 0)
  var reset: @Sendable () async throws -> Void = unimplemented("TriviaClient.reset")
  var search: @Sendable (_ query: String, _ limit: Int) async throws -> [String] = unimplemented(
    "TriviaClient.search")

  /// TCA's labelled call, which its macro writes: a line a labelled endpoint.
  func search(query: String, limit: Int) async throws -> [String] { try await search(query, limit) }
}

/// The key knows only its test value here; the live value is declared where the app links it.
extension TriviaClient: TestDependencyKey {
  static let testValue = TriviaClient()
}

extension DependencyValues {
  var trivia: TriviaClient {
    get { self[TriviaClient.self] }
    set { self[TriviaClient.self] = newValue }
  }
}

private struct Fact: Dripper {
  struct State: Equatable, Sendable { var fact: String? }
  enum Action: Equatable, Sendable {
    case ask(Int)
    case answer(String)
    case saveTapped
  }
  @Dependency(\.trivia) var trivia
  @Dependency(\.dismiss) var dismiss
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .ask(let n):
        return .run { pour in await pour(.answer(try await trivia.fact(n))) }
      case .answer(let fact):
        state.fact = fact
        return .none
      case .saveTapped:
        return .run { _ in await dismiss() }
      }
    }
  }
}

/// A feature whose endpoints have defaults of their own, each called once.
private struct Defaults: Dripper {
  struct State: Equatable, Sendable { var answers: [String] = [] }
  enum Action: Equatable, Sendable {
    case ask
    case answered([String])
  }
  let count: @Sendable (Int) -> Int = unimplemented("Defaults.count", default: { $0 + 1 })
  let favorite: @Sendable () async -> Int = unimplemented("Defaults.favorite", default: { 7 })
  let fact: @Sendable (Int) async throws -> String = unimplemented("Defaults.fact", default: { "\($0)" })
  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .ask:
        return .run { [count, favorite, fact] pour in
          await pour(.answered(["\(count(1))", "\(await favorite())", try await fact(3)]))
        }
      case .answered(let answers):
        state.answers = answers
        return .none
      }
    }
  }
}

@Suite struct DependencyClientTests {
  /// A labelled endpoint is called with its labels, as TCA's macro makes it, and overridden as a
  /// closure.
  @Test func aLabelledEndpointIsCalledWithItsLabels() async throws {
    let client = TriviaClient(search: { query, limit in Array(repeating: query, count: limit) })
    #expect(try await client.search(query: "blob", limit: 2) == ["blob", "blob"])
  }

  @Test func anOverriddenEndpointAnswers() async {
    let station = TestStation(initialState: Fact.State()) {
      Fact()
    } withDependencies: {
      $0.trivia.fact = { "\($0) is a number" }
    }
    await station.pour(.ask(3))
    await station.receive(.answer("3 is a number")) { $0.fact = "3 is a number" }
  }

  @Test func anEndpointNotOverriddenFailsNamingClientAndEndpoint() async {
    let station = TestStation(initialState: Fact.State()) { Fact() }
    await withExpectedFailure {
      await station.pour(.ask(3))
      await station.finish()
    } matching: { issue in
      // The call is reported, naming client and endpoint, and so is the error it threw, as in TCA.
      issue.comments.contains {
        $0.rawValue.hasPrefix("unimplemented endpoint 'TriviaClient.fact' (declared at ")
          || $0.rawValue.hasSuffix("threw TriviaClient.fact, which no 'catch' handled")
      }
    }
  }

  /// Endpoints with defaults of their own (TCA's `= { .notDetermined }`) answer with them, and
  /// each call is reported as not implemented, as TCA's macro makes them.
  @Test func anEndpointWithADefaultAnswersWithItAndIsReported() async {
    let station = TestStation(initialState: Defaults.State()) { Defaults() }
    await withExpectedFailure {
      await station.pour(.ask)
      await station.receive(.answered(["2", "7", "3"])) { $0.answers = ["2", "7", "3"] }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("unimplemented endpoint 'Defaults.") }
    }
  }

  @Test func aTestSeesADismissalThroughItsOwnDismissEffect() async {
    let dismissed = LockIsolated(false)
    let station = TestStation(initialState: Fact.State()) {
      Fact()
    } withDependencies: {
      $0.dismiss = DismissEffect { dismissed.setValue(true) }
    }
    await station.pour(.saveTapped)
    await station.finish()
    #expect(dismissed.value)
  }
}
