extension Dripper {
  /// The reduction of a parent with a child that may be absent, shared by `ifLet` and
  /// `ifCaseLet`.
  ///
  /// `identity` tells which child is there: `nil` when it is absent, otherwise a value that
  /// changes when another child takes its place (its id, for an identifiable child; `true`
  /// otherwise). For a child action, the child runs first (`runChild` returns `nil` when the child
  /// is absent: the action is then reported with `missing`). Then the parent runs; if its
  /// reduction made the child absent or replaced it, the child's effects are cancelled. The
  /// child's namespace is made only when an effect needs it, never for an action that leaves the
  /// child alone.
  @inlinable
  func reduce<ChildAction, Identity: Hashable>(
    into state: inout State, action: Action, withChild toChildAction: CasePath<Action, ChildAction>,
    identity: (State) -> Identity?,
    runChild: (inout State, ChildAction) -> Effect<ChildAction>?,
    missing: () -> Diagnostic,
    namespace: (Identity) -> AnySendableHashable
  ) -> Effect<Action> {
    var childEffect = Effect<Action>.none
    let before = identity(state)
    if let childAction = toChildAction.extract(action) {
      if let before, let effect = runChild(&state, childAction) {
        if !effect.isNone { childEffect = effect.map(toChildAction.embed).namespaced(namespace(before)) }
      } else {
        childEffect = .report(missing())
      }
    }
    var effect = childEffect.merge(with: reduce(into: &state, action: action))
    if let before, identity(state) != before {
      effect = effect.merge(with: .cancelNamespace(namespace(before)))
    }
    return effect
  }
}

/// Where a composition operator is written: what tells apart two siblings over the same child
/// type.
///
/// The file is compared by the address of its literal, not its text: a site must cost nothing to
/// make, and a body is built again at each call of a child's `reduce(into:action:)` made by hand
/// (a Station builds every body once).
@usableFromInline
struct CallSite: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline let fileID: StaticString
  @usableFromInline let line: UInt
  @usableFromInline let column: UInt

  @inlinable
  init(fileID: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.line = line
    self.column = column
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.line == rhs.line && lhs.column == rhs.column && lhs.fileID.utf8Start == rhs.fileID.utf8Start
  }

  @usableFromInline
  func hash(into hasher: inout Hasher) {
    hasher.combine(UInt(bitPattern: fileID.utf8Start))
    hasher.combine(line)
    hasher.combine(column)
  }

  @usableFromInline
  var description: String { "\(fileID):\(line):\(column)" }
}

/// A child's id at one call site.
@usableFromInline
struct SitedID: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline let site: CallSite
  @usableFromInline let id: AnySendableHashable

  @inlinable
  init(site: CallSite, id: AnySendableHashable) {
    self.site = site
    self.id = id
  }

  @usableFromInline
  var description: String { "\(id)" }
}

/// The check of a child that may be absent, shared by `ifLet` and `ifCaseLet` (see ``_Audit``).
@usableFromInline
enum _OptionalChild {
  /// Cancels the effects of the child the Station last saw at `node`, if it is gone or another
  /// child took its place; then runs the child's own check, in its namespace.
  @inlinable
  static func audit<ChildState, ChildAction>(
    _ child: inout ChildState?, node: UInt64, identity: (ChildState) -> AnySendableHashable,
    namespace: (AnySendableHashable) -> AnySendableHashable, childAudit: _Audit<ChildState, ChildAction>?,
    context: inout _AuditContext
  ) -> Effect<ChildAction> {
    let now = child.map(identity)
    var effect = Effect<ChildAction>.none
    if let was = context.replaced(node, by: now) { effect = .cancelNamespace(namespace(was)) }
    guard let childAudit, let now else { return effect }
    let childEffect = childAudit(&child!, &context)
    return childEffect.isNone ? effect : effect.merge(with: childEffect.namespaced(namespace(now)))
  }
}
