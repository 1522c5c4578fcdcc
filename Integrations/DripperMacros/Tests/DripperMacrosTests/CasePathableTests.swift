import DripperMacros
import DripperTesting
import Testing

// `@CasePathable` compiled and used: what its expansion tests show as text, checked as code.

/// A generic feature's action (isowords' `LeaderboardResults<TimeScope>.Action`): one table for
/// every type it takes.
@CasePathable
private enum LeaderboardAction<TimeScope: Sendable>: Sendable {
  case load(TimeScope)
  case resultsResponse(Result<[String], any Error>)
}

/// Cases of every shape, in a public enum.
@CasePathable @dynamicMemberLookup
public enum Shapes: Equatable, Sendable {
  case plain
  case labelled(name: String)
  case pair(Int, label: String)
  case unlabelled(_ x: Int, _ y: Int)
  case nested([Self])
  #if DEBUG
    case debugOnly(Int)
  #else
    case releaseOnly(Int)
  #endif
}

@Suite struct CasePathableTests {
  /// A generic enum's table names its cases for every type it takes.
  @Test func aGenericEnumsPathIsWrittenOnceForEveryType() {
    let weekly = CasePath<LeaderboardAction<String>, [String]>(\.resultsResponse.success)
    let byGame = CasePath<LeaderboardAction<Int>, Int>(\.load)
    #expect(weekly.extract(.resultsResponse(.success(["blob"]))) == ["blob"])
    #expect(weekly.extract(.load("week")) == nil)
    #expect(byGame.extract(byGame.embed(3)) == 3)
  }

  /// Each shape of case embeds and extracts its payload, and only its own.
  @Test func everyShapeOfCaseHasItsPath() {
    #expect(CasePath<Shapes, Void>(\.plain).embed(()) == .plain)
    #expect(CasePath<Shapes, Void>(\.plain).extract(.labelled(name: "a")) == nil)
    #expect(CasePath(\Shapes.AllCasePaths.labelled).embed("a") == .labelled(name: "a"))
    #expect(Shapes.labelled(name: "a").labelled == "a")

    let pair = CasePath(\Shapes.AllCasePaths.pair)
    #expect(pair.embed((1, label: "b")) == .pair(1, label: "b"))
    #expect(pair.extract(.pair(2, label: "c")).map { "\($0.0)\($0.label)" } == "2c")
    #expect(CasePath(\Shapes.AllCasePaths.unlabelled).extract(.unlabelled(3, 4)).map { $0.0 + $0.1 } == 7)
    #expect(Shapes.nested([.plain]).nested == [.plain])
    #if DEBUG
      #expect(Shapes.debugOnly(5).debugOnly == 5)
    #else
      #expect(Shapes.releaseOnly(5).releaseOnly == 5)
    #endif
  }

  /// An enum state is changed in place by key path, and read by name (`@dynamicMemberLookup`).
  @Test func anEnumStateIsChangedInPlace() {
    var shape = Shapes.labelled(name: "a")
    shape.modify(\.labelled) { $0 += "b" }
    #expect(shape.labelled == "ab" && shape.is(\.labelled) && !shape.is(\.plain))
    shape.labelled = "c"
    #expect(shape == .labelled(name: "c"))
  }
}
