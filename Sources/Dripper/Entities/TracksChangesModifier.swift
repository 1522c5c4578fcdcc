extension Dripper {
  /// Keeps the ``EntityTable/changes`` of the table at `table`: before each reduction, the
  /// record of the last one is forgotten, so that after it the table holds what this reduction
  /// inserted, updated and removed.
  ///
  /// ```swift
  /// var body: some DripperOf<Self> {
  ///   Drip { state, action in … }
  ///     .tracksChanges(of: \.todos)
  /// }
  /// ```
  ///
  /// Without it a table records nothing. Apply it where the table's owner is reduced, once per
  /// table: every action of this dripper starts a new record, including those that do not touch
  /// the table (their record is empty).
  @inlinable
  public func tracksChanges<Entity>(
    of table: any WritableKeyPath<State, EntityTable<Entity>> & Sendable
  ) -> some Dripper<State, Action> {
    _TracksChangesModifier(base: self, table: table)
  }
}

/// A dripper that keeps a table's record of changes: see ``Dripper/tracksChanges(of:)``.
@usableFromInline
struct _TracksChangesModifier<Base: Dripper, Entity: Identifiable & Sendable>: Dripper
where Entity.ID: Sendable {
  /// A leaf: it implements `reduce`.
  public typealias Body = Never

  @usableFromInline let base: Base
  @usableFromInline let table: any WritableKeyPath<Base.State, EntityTable<Entity>> & Sendable

  @usableFromInline
  init(base: Base, table: any WritableKeyPath<Base.State, EntityTable<Entity>> & Sendable) {
    self.base = base
    self.table = table
  }

  /// Starts a new record in the table, then reduces with the base dripper.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    state[keyPath: table].beginReduction()
    return base.reduce(into: &state, action: action)
  }

  /// The reduction a Station runs: over the base built once.
  @inlinable
  public func _reducer() -> @Sendable (inout Base.State, Base.Action) -> Effect<Base.Action> {
    _build().reduce
  }

  /// The reduction a Station runs and its check: over the base built once; the base's check.
  @inlinable
  public func _build() -> _Reduction<Base.State, Base.Action> {
    let (base, audit) = _BuiltDripper.building(self.base)
    let built = _TracksChangesModifier<_BuiltDripper<Base.State, Base.Action>, Entity>(
      base: base, table: table)
    return reduction(of: built, audit: audit)
  }

}
