/// One case of an enum, named without macros: it embeds a value into the case and extracts it back.
///
/// Composition needs to name a child's case of its parent's action (and, for enum-shaped state, of
/// its parent's state). Declare one case path per case, as a static property in an extension of
/// `CasePath` constrained to the parent type — one short line each:
///
/// ```swift
/// struct AppFeature: Dripper {
///   struct State { var counter = Counter.State() }
///   enum Action { case counter(Counter.Action), reset }
///   …
/// }
///
/// extension CasePath<AppFeature.Action, Counter.Action> {
///   static var counter: Self { Self(AppFeature.Action.counter) { if case .counter(let a) = $0 { a } else { nil } } }
/// }
/// ```
///
/// Then call sites read like key paths:
///
/// ```swift
/// Scope(state: \.counter, action: .counter) { Counter() }
/// ```
///
/// The embedding is the case itself (`AppFeature.Action.counter` is a function from the payload);
/// the extraction is a pattern match the compiler checks. Neither uses reflection, so both cost a
/// function call.
///
/// A path through several cases is written as TCA's key path is, after `CasePath`: each name after
/// the first is a case path declared on the case before it (see ``subscript(dynamicMember:)-(KeyPath<CasePath<Value,Next>.,CasePath<Value,Next>>)``).
///
/// ```swift
/// await store.receive(CasePath.recordingMemo.presented.delegate.didFinish.success)   // TCA: \.recordingMemo.presented.delegate.didFinish.success
/// ```
@dynamicMemberLookup
public struct CasePath<Root, Value>: Sendable {
  /// Wraps a value in the case.
  public let embed: @Sendable (Value) -> Root
  /// The value in the case, or `nil` if `root` is another case.
  public let extract: @Sendable (Root) -> Value?

  /// Creates a case path from the case's constructor and a pattern match.
  ///
  /// - Parameters:
  ///   - embed: The case's constructor, such as `Action.counter`.
  ///   - extract: Returns the payload when the value is in the case, `nil` otherwise.
  public init(
    _ embed: @escaping @Sendable (Value) -> Root,
    extract: @escaping @Sendable (Root) -> Value?
  ) {
    self.embed = embed
    self.extract = extract
  }

  /// Whether `root` is in the case.
  public func matches(_ root: Root) -> Bool { extract(root) != nil }

  /// A case path through this case and then through `next`: a grandchild's case in a parent.
  public func appending<Next>(_ next: CasePath<Value, Next>) -> CasePath<Root, Next> {
    let (embed, extract) = (self.embed, self.extract)
    return CasePath<Root, Next>({ embed(next.embed($0)) }, extract: { extract($0).flatMap(next.extract) })
  }

  /// A case path through this case and then through the case path of the payload's type that
  /// `next` names: `CasePath.memo.presented.didFinish` is
  /// `CasePath.memo.appending(.presented).appending(.didFinish)`.
  ///
  /// ```swift
  /// extension CasePath<VoiceMemos.Action, PresentationAction<RecordingMemo.Action>> {
  ///   static var recordingMemo: Self { … }
  /// }
  /// extension CasePath<RecordingMemo.Action, RecordingMemo.Action.Delegate> {
  ///   static var delegate: Self { … }
  /// }
  ///
  /// CasePath.recordingMemo.presented.delegate   // a CasePath<VoiceMemos.Action, RecordingMemo.Action.Delegate>
  /// ```
  ///
  /// A name is a static property of `CasePath`, declared by the feature or by Dripper (`.success`,
  /// `.presented`, …); a case path made by a function (`.element(id:)`) is appended with
  /// ``appending(_:)``, or with a subscript where one is offered (`[id: 2]`). A case path named as
  /// a member of `CasePath` is (`embed`, `extract`, `matches`, `appending`, `modify`) finds the
  /// member, not the case path: append it, `.appending(.extract)`.
  public subscript<Next>(
    dynamicMember next: KeyPath<CasePath<Value, Next>.Type, CasePath<Value, Next>>
  ) -> CasePath<Root, Next> {
    appending(CasePath<Value, Next>.self[keyPath: next])
  }
}

extension CasePath {
  /// Changes the payload of the case in place, if `root` is in it; does nothing otherwise.
  ///
  /// ```swift
  /// CasePath.editor.modify(&state.destination) { $0.title = "Draft" }
  /// ```
  public func modify(_ root: inout Root, _ body: (inout Value) throws -> Void) rethrows {
    guard var value = extract(root) else { return }
    try body(&value)
    root = embed(value)
  }
}

extension Optional {
  /// The payload of one case of the wrapped enum: `nil` when there is no value or it is in another
  /// case. Set, it puts the value in the case; set to `nil` while in the case, it clears the
  /// optional. The macro-free form of TCA's `$0.destination?.editor?.title = "x"`:
  ///
  /// ```swift
  /// await station.pour(.titleChanged("Draft")) {
  ///   $0.destination[case: .editor]?.title = "Draft"
  /// }
  /// ```
  public subscript<Case>(case path: CasePath<Wrapped, Case>) -> Case? {
    get { flatMap(path.extract) }
    set { self = Self.setting(newValue, of: path, in: self) }
    _modify {
      var payload = flatMap(path.extract)
      yield &payload
      self = Self.setting(payload, of: path, in: self)
    }
  }

  /// `root` with `payload` put in the case, or cleared if `payload` is `nil` while `root` is in it.
  private static func setting<Case>(_ payload: Case?, of path: CasePath<Wrapped, Case>, in root: Self) -> Self
  {
    if let payload { return path.embed(payload) }
    guard let root, path.matches(root) else { return root }
    return nil
  }
}

extension CasePath where Root: CasePathable {
  /// The case path a key path names in the enum's table: `CasePath(\.login)`.
  public init(_ keyPath: CaseKeyPath<Root, Value>) {
    self = Root.allCasePaths[keyPath: keyPath]
  }

  /// A case path of the enum's table, by name, where the root is known from context:
  /// `CasePath.login`, as a test's `receive` writes it.
  public static subscript(dynamicMember keyPath: CaseKeyPath<Root, Value>) -> Self {
    Root.allCasePaths[keyPath: keyPath]
  }
}

extension CasePath where Value: CasePathable {
  /// A path on through one of the payload's cases, named in its table: `CasePath.login.view`,
  /// `\.login.view` in a key path. Where a case path declared in an extension has the same name
  /// (a `BindableAction`'s `binding`), that one is taken: both name the same case.
  @_disfavoredOverload
  public subscript<Next>(dynamicMember next: CaseKeyPath<Value, Next>) -> CasePath<Root, Next> {
    appending(Value.allCasePaths[keyPath: next])
  }
}
