import Dripper

extension TestStation where Action == Commit<State> {
  /// Starts a feature of commits for a test: no action enum, no dripper (see `Commit`).
  ///
  /// ```swift
  /// let station = TestStation<Counter, Commit<Counter>>(initialState: Counter())
  /// await station.commit("increase", { $0.count += 1 }, assert: { $0.count = 1 })
  /// ```
  public convenience init(
    initialState: State,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in },
    reporter: FailureReporter = .automatic,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    self.init(
      initialState: initialState, dripper: { Committing<State>() }, withDependencies: prepareDependencies,
      reporter: reporter, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Commits `mutation` and checks the state it leaves, exhaustively, as
  /// ``pour(_:assert:fileID:filePath:line:column:)-(Action,_,_,_,_,_)`` does for an action.
  ///
  /// ```swift
  /// await station.commit("increase", { $0.count += 1 }, assert: { $0.count = 1 })
  /// ```
  @discardableResult
  public nonisolated(nonsending) func commit(
    _ name: String, _ mutation: @escaping @Sendable (inout State) -> Void,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    await pour(
      Commit(name, mutation), assert: expectation, fileID: fileID, filePath: filePath, line: line,
      column: column)
  }

  /// Replaces the whole state, and checks it.
  @discardableResult
  public nonisolated(nonsending) func emit(
    _ state: State,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    await pour(
      .emit(state), assert: expectation, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Waits for an effect to commit a change named `name`, and checks the state it leaves.
  public nonisolated(nonsending) func receive(
    commit name: String,
    timeout: Duration? = nil,
    assert expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async {
    await receive(
      Expected(description: "commit(\"\(name)\")", value: nil, matches: { $0.name == name }),
      timeout: timeout, assert: expectation,
      at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}
