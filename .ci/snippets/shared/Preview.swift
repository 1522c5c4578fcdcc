// The parent and child the dependency snippets scope with `.dependency(\.clock, …)`: shared by the
// README's and UsingDependencies.md's glue (linked as <Document>+Preview.swift).
import Dripper

struct Preview: Dripper {
  struct State: Equatable, Sendable {}
  enum Action: Sendable { case appeared }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Parent: Dripper {
  struct State: Equatable, Sendable { var preview = Preview.State() }
  enum Action: Sendable { case preview(Preview.Action) }
  var body: some DripperOf<Self> { EmptyDripper() }
}

extension CasePath<Parent.Action, Preview.Action> {
  static var preview: Self { Self(Parent.Action.preview) { if case .preview(let a) = $0 { a } else { nil } } }
}
