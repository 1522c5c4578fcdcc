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
}
