import Dripper

extension TestStation {
  /// TCA's `store.send(_:_:)`: a TestStation's actions are poured, with the same trailing
  /// assertion. Written `send`, the compiler names the replacement.
  @available(*, unavailable, renamed: "pour(_:assert:)", message: "a TestStation's actions are poured")
  @discardableResult
  public nonisolated(nonsending) func send(
    _ action: Action, _ expectation: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) async -> TestStationTask {
    await pour(action, assert: expectation, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
