// What SharingState.md's snippets leave out: the case path they name.
// Compiled with them by .ci/docs-snippets.sh.
import Dripper

extension CasePath<Todos.Action, Settings> {
  static var settingsChanged: Self {
    Self(Todos.Action.settingsChanged) { if case .settingsChanged(let s) = $0 { s } else { nil } }
  }
}
