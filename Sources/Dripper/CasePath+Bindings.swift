/// The case paths of bindings: TCA's `\.view.binding.email`, a path to one field's binding, which a
/// test pours with a value or receives.
///
/// ```swift
/// await station.pour(CasePath.login.view.binding.email, "blob@pointfree.co") {   // TCA: store.send(\.login.view.binding.email, "blob@pointfree.co")
///   $0.modify(.login) { $0.email = "blob@pointfree.co" }
/// }
/// ```
extension CasePath where Root: BindableAction, Value == BindingAction<Root.State> {
  /// The binding case of a ``BindableAction``: `.binding(_:)`, and the binding it carries.
  public static var binding: Self {
    Self(Root.binding) { $0.binding }
  }
}

extension CasePath {
  /// The path to the binding of one field: embedding a value makes the binding that sets the field
  /// at `keyPath` to it (`.set(keyPath, value)`); extracting finds the value of a binding of that
  /// field, and `nil` for a binding of another.
  ///
  /// ```swift
  /// CasePath.view.binding.email   // TCA: \.view.binding.email
  /// ```
  public subscript<BoundState, Field: Equatable & Sendable>(
    dynamicMember keyPath: any WritableKeyPath<BoundState, Field> & Sendable
  ) -> CasePath<Root, Field> where Value == BindingAction<BoundState> {
    let (embed, extract) = (self.embed, self.extract)
    return CasePath<Root, Field>(
      { embed(.set(keyPath, $0)) },
      extract: { root in extract(root).flatMap { $0.value(at: keyPath) } })
  }
}
