// What SharingState.md's snippets leave out: the case path they name.
// Compiled with them by .ci/docs-snippets.sh.
import Dripper

extension CasePath<Todos.Action, SettingsEditor.Action> {
  static var editor: Self { Self(Todos.Action.editor) { if case .editor(let a) = $0 { a } else { nil } } }
}
