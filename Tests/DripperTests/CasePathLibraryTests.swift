import Dripper
import Testing

/// Issue 60: the cases of `Result`, `PresentationAction`, `IdentifiedAction` and `StackAction`
/// named once, so a path through several is one expression.
@Suite struct CasePathLibraryTests {
  struct Failure: Error, Equatable {}

  enum Memo: Sendable, Equatable {
    case didFinish(Result<Int, Failure>)
  }

  enum Recording: Sendable {
    case delegate(Memo)
  }

  enum Parent: Sendable {
    case recordingMemo(PresentationAction<Recording>)
    case rows(IdentifiedAction<Int, Memo>)
    case path(StackAction<Int, Memo>)
  }

  static let recordingMemo = CasePath(Parent.recordingMemo) {
    if case .recordingMemo(let a) = $0 { a } else { nil }
  }
  static let delegate = CasePath(Recording.delegate) { if case .delegate(let a) = $0 { a } else { nil } }
  static let didFinish = CasePath(Memo.didFinish) { if case .didFinish(let a) = $0 { a } else { nil } }
  static let rows = CasePath(Parent.rows) { if case .rows(let a) = $0 { a } else { nil } }
  static let path = CasePath(Parent.path) { if case .path(let a) = $0 { a } else { nil } }

  /// TCA's `\.recordingMemo.presented.delegate.didFinish.success`, as one expression.
  @Test func aPathThroughPresentationAndResult() {
    let path = Self.recordingMemo.appending(.presented).appending(Self.delegate).appending(Self.didFinish)
      .appending(.success)
    guard case .recordingMemo(.presented(.delegate(.didFinish(.success(7))))) = path.embed(7) else {
      Issue.record("embedded in the wrong case")
      return
    }
    #expect(path.extract(.recordingMemo(.presented(.delegate(.didFinish(.success(3)))))) == 3)
    #expect(path.extract(.recordingMemo(.presented(.delegate(.didFinish(.failure(Failure())))))) == nil)
    #expect(path.extract(.recordingMemo(.dismiss)) == nil)
    let failure = Self.didFinish.appending(.failure)
    #expect(failure.extract(.didFinish(.failure(Failure()))) == Failure())
    #expect(failure.extract(.didFinish(.success(1))) == nil)
  }

  @Test func dismissIsACaseWithoutAPayload() {
    let dismiss = Self.recordingMemo.appending(.dismiss)
    #expect(dismiss.matches(.recordingMemo(.dismiss)))
    #expect(!dismiss.matches(.recordingMemo(.presented(.delegate(.didFinish(.success(1)))))))
    guard case .recordingMemo(.dismiss) = dismiss.embed(()) else {
      Issue.record("embedded in the wrong case")
      return
    }
  }

  @Test func elementsOfListsAndStacksByID() {
    let row = Self.rows.appending(.element(id: 2))
    #expect(row.extract(.rows(.element(id: 2, action: .didFinish(.success(1))))) == .didFinish(.success(1)))
    #expect(row.extract(.rows(.element(id: 3, action: .didFinish(.success(1))))) == nil)
    let screen = Self.path.appending(.element(id: 0))
    #expect(
      screen.extract(.path(.element(id: 0, action: .didFinish(.success(4))))) == .didFinish(.success(4)))
    #expect(screen.extract(.path(.popFrom(id: 0))) == nil)
    let push = Self.path.appending(.push())
    #expect(push.extract(.path(.push(id: 1, state: 9)))?.state == 9)
    #expect(Self.path.appending(.popFrom()).extract(.path(.popFrom(id: 5))) == 5)
  }
}

/// A chain written as TCA's key path is: each name a case path declared on the case before it.
extension CasePath<CasePathLibraryTests.Parent, PresentationAction<CasePathLibraryTests.Recording>> {
  fileprivate static var recordingMemo: Self { Self(CasePathLibraryTests.Parent.recordingMemo) }
}
extension CasePath<CasePathLibraryTests.Parent, IdentifiedAction<Int, CasePathLibraryTests.Memo>> {
  fileprivate static var rows: Self { Self(CasePathLibraryTests.Parent.rows) }
}
extension CasePath<CasePathLibraryTests.Recording, CasePathLibraryTests.Memo> {
  fileprivate static var delegate: Self { Self(CasePathLibraryTests.Recording.delegate) }
}
extension CasePath<CasePathLibraryTests.Memo, Result<Int, CasePathLibraryTests.Failure>> {
  fileprivate static var didFinish: Self { Self(CasePathLibraryTests.Memo.didFinish) }
}

@Suite struct CasePathChainTests {
  typealias Parent = CasePathLibraryTests.Parent

  /// `CasePath.recordingMemo.presented.delegate.didFinish.success`: TCA's
  /// `\.recordingMemo.presented.delegate.didFinish.success` after `CasePath`, through the library's
  /// `.presented` and `.success` and the feature's own paths, the same path `appending` makes.
  @Test func aChainOfNamesIsThePathAppendingMakes() {
    let chained = CasePath.recordingMemo.presented.delegate.didFinish.success
    let appended = CasePath.recordingMemo.appending(.presented).appending(.delegate).appending(.didFinish)
      .appending(.success)
    for action: Parent in [
      .recordingMemo(.presented(.delegate(.didFinish(.success(3))))),
      .recordingMemo(.presented(.delegate(.didFinish(.failure(.init()))))),
      .recordingMemo(.dismiss), .rows(.element(id: 1, action: .didFinish(.success(3)))),
    ] {
      #expect(chained.extract(action) == appended.extract(action))
    }
    #expect(chained.extract(.recordingMemo(.presented(.delegate(.didFinish(.success(3)))))) == 3)
    guard case .recordingMemo(.presented(.delegate(.didFinish(.success(7))))) = chained.embed(7) else {
      Issue.record("embedded in the wrong case")
      return
    }
    #expect(CasePath.recordingMemo.dismiss.matches(.recordingMemo(.dismiss)))
  }

  /// A subscript in the chain, TCA's `\.rows[id: 2].didFinish.failure`.
  @Test func aChainGoesThroughAnElementByID() {
    let failure = CasePath.rows[id: 2].didFinish.failure
    #expect(failure.extract(.rows(.element(id: 2, action: .didFinish(.failure(.init()))))) == .init())
    #expect(failure.extract(.rows(.element(id: 1, action: .didFinish(.failure(.init()))))) == nil)
    #expect(failure.extract(.rows(.element(id: 2, action: .didFinish(.success(1))))) == nil)
  }
}
