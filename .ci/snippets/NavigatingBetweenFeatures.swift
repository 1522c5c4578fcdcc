// What NavigatingBetweenFeatures.md's snippets leave out: a confirmation, a
// detail screen, the stack's Path and the case paths. Compiled with them by
// .ci/docs-snippets.sh.
import Dripper

struct Confirm: Dripper {
  struct State: Equatable, Sendable {}
  enum Action: Sendable { case yes, no }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Detail: Dripper {
  struct State: Equatable, Sendable { var id: Int }
  enum Action: Sendable { case close }
  var body: some DripperOf<Self> { EmptyDripper() }
}

struct Path: Dripper {
  enum State: Equatable, Sendable { case detail(Detail.State) }
  enum Action: Sendable { case detail(Detail.Action) }
  var body: some DripperOf<Self> {
    EmptyDripper().ifCaseLet(.detail, action: .detail) { Detail() }
  }
}

extension CasePath<Todos.Action, PresentationAction<Editor.Action>> {
  static var editor: Self { Self(Todos.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}
extension CasePath<Destination.State, Confirm.State> {
  static var confirm: Self { Self(Destination.State.confirm) { if case .confirm(let s) = $0 { s } else { nil } } }
}
extension CasePath<Destination.State, Editor.State> {
  static var editor: Self { Self(Destination.State.editor) { if case .editor(let s) = $0 { s } else { nil } } }
}
extension CasePath<Destination.Action, Confirm.Action> {
  static var confirm: Self { Self(Destination.Action.confirm) { if case .confirm(let a) = $0 { a } else { nil } } }
}
extension CasePath<Destination.Action, Editor.Action> {
  static var editor: Self { Self(Destination.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}
extension CasePath<Settings.Action, PresentationAction<Destination.Action>> {
  static var destination: Self {
    Self(Settings.Action.destination) { if case .destination(let a) = $0 { a } else { nil } }
  }
}
extension CasePath<Path.State, Detail.State> {
  static var detail: Self { Self(Path.State.detail) { if case .detail(let s) = $0 { s } else { nil } } }
}
extension CasePath<Path.Action, Detail.Action> {
  static var detail: Self { Self(Path.Action.detail) { if case .detail(let a) = $0 { a } else { nil } } }
}
extension CasePath<Library.Action, StackAction<Path.State, Path.Action>> {
  static var path: Self { Self(Library.Action.path) { if case .path(let a) = $0 { a } else { nil } } }
}
extension CasePath<Meeting.Action, PresentationAction<Meeting.Action.Alert>> {
  static var alert: Self { Self(Meeting.Action.alert) { if case .alert(let a) = $0 { a } else { nil } } }
}
