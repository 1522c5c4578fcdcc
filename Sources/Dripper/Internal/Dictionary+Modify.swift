extension Dictionary {
  /// Changes the value for `key` with `body`, inserting `initial` first if there is none.
  ///
  /// What `self[key, default: initial]` does, without its cost on the registry's paths: there the
  /// subscript is not inlined, and the `default:` autoclosure is boxed on the heap at every call,
  /// whether the key is present or not. Here a present key is found with one lookup and changed in
  /// place; a new one costs a second lookup to insert it.
  @inline(__always)
  mutating func modify<Result>(
    _ key: Key, default initial: @autoclosure () -> Value, _ body: (inout Value) -> Result
  ) -> Result {
    if let index = index(forKey: key) { return body(&values[index]) }
    var value = initial()
    let result = body(&value)
    self[key] = value
    return result
  }
}
