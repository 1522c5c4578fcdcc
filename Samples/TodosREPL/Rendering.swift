import Dripper
import Foundation
import REPLSupport

/// How the Todos REPL shows the list.
///
/// Titles, drafts and the search come from the user or from a file: they are shown with
/// `shownSafely()`, so that none can drive the terminal.
enum Rendering {
  /// What the REPL says after a command that reports: a line to show, or the error's text.
  /// `savingWithPath`: whether a refused save named its file (the hint repeats it).
  static func message(for outcome: Todos.Outcome, savingWithPath named: Bool = false) -> Result<
    String?, CommandError
  > {
    func todos(_ count: Int) -> String { "\(count) \(count == 1 ? "todo" : "todos")" }
    switch outcome {
    case .saved(let count, let path): return .success("saved \(todos(count)) to \(path.shownSafely())")
    case .loaded(let count, let path): return .success("loaded \(todos(count)) from \(path.shownSafely())")
    case .startedEmpty(let path):
      return .success("no file at \(path.shownSafely()) yet: starting with an empty list; 'save' creates it")
    case .undone: return .success("undone")
    case .redone: return .success("redone")
    case .refused(.nothingToUndo): return .failure(CommandError("nothing to undo"))
    case .refused(.nothingToRedo): return .failure(CommandError("nothing to redo"))
    case .refused(.nothingBeingEdited):
      return .failure(CommandError("nothing is being edited; use 'edit N' first"))
    case .refused(.unknownFile(let path)):
      return .failure(
        CommandError(
          "\(path.shownInMessage(limit: 100)) exists and this session did not load or create it: "
            + "'save --force\(named ? " PATH" : "")' replaces it"))
    case .refused(.changedElsewhere(let path)):
      return .failure(
        CommandError(
          "\(path.shownInMessage(limit: 70)) changed since this session read or wrote it: "
            + "'save --force PATH' replaces it"))
    case .refused(.files(let error)): return .failure(CommandError(error.message))
    }
  }

  /// The visible todos, numbered, with a summary line and the editor, if open.
  static func view(of state: Todos.State, colors: Bool) -> String {
    let visible = state.visible
    var lines = visible.enumerated().map { line(for: $1, at: $0, colors: colors) }
    if visible.isEmpty { lines.append(state.rows.isEmpty ? "(no todos)" : "(no todos to show)") }
    return (lines + tail(of: state, visible: visible)).joined(separator: "\n")
  }

  /// A list longer than this is not shown whole after each change, only what changed in it: a
  /// script that adds n todos would otherwise print n²/2 lines.
  static let fullViewLimit = 20

  /// What the session last showed of the list, to compare the next state with.
  struct Shown: Sendable {
    var view: String?
    var rows: IdentifiedArrayOf<Row.State>
    var tail: [String]
    var filter: Todos.Filter
    var search: String

    init(_ state: Todos.State, colors: Bool) {
      let visible = state.visible
      self.init(
        view: visible.count <= fullViewLimit ? Rendering.view(of: state, colors: colors) : nil, state: state,
        visible: visible)
    }

    init(view: String?, state: Todos.State, visible: [Row.State]) {
      self.view = view
      self.rows = state.rows
      self.tail = Rendering.tail(of: state, visible: visible)
      self.filter = state.filter
      self.search = state.search
    }
  }

  /// What to show after a reduction left `state`, given what was shown last (`nil` when nothing
  /// changed): the whole view of a short list, or of one whose filter or search changed; of a
  /// long one, the rows added or changed, with their numbers, the titles of those removed, and
  /// the summary. Updates `shown`.
  static func update(_ shown: inout Shown, to state: Todos.State, colors: Bool) -> String? {
    let visible = state.visible
    if visible.count <= fullViewLimit || shown.filter != state.filter || shown.search != state.search {
      let view = view(of: state, colors: colors)
      defer { shown = Shown(view: view, state: state, visible: visible) }
      return view == shown.view ? nil : view
    }
    // The rows added or changed, found by walking both lists side by side: a row is looked up
    // by its id only where the two lists stop matching (a removal, a load), so that an action
    // that appends or changes one row costs no hashing of the others.
    let old = shown.rows
    let new = state.rows
    var changed: [UUID] = []
    var aligned = true
    for index in new.indices {
      let row = new[index]
      if aligned, index < old.count, old[index].id == row.id {
        if old[index] != row { changed.append(row.id) }
        continue
      }
      if index < old.count { aligned = false }
      if old[id: row.id] != row { changed.append(row.id) }
    }
    var lines: [String] = []
    if !changed.isEmpty {
      for (index, row) in visible.enumerated() where changed.contains(row.id) {
        lines.append(line(for: row, at: index, colors: colors))
      }
    }
    if !aligned || new.count < old.count {
      for row in old where new[id: row.id] == nil {
        lines.append("removed: \"\(row.title.shownSafely())\"")
      }
    }
    let tail = tail(of: state, visible: visible)
    defer { shown = Shown(view: nil, state: state, visible: visible) }
    return lines.isEmpty && tail == shown.tail ? nil : (lines + tail).joined(separator: "\n")
  }

  private static func line(for row: Row.State, at index: Int, colors: Bool) -> String {
    let box = row.isDone ? (colors ? "\u{1B}[32m[x]\u{1B}[0m" : "[x]") : "[ ]"
    let title =
      row.isDone && colors ? "\u{1B}[2m\(row.title.shownSafely())\u{1B}[0m" : row.title.shownSafely()
    return "\(index + 1). \(box) \(title)"
  }

  /// The lines under the rows: the summary, and the editor, if open.
  private static func tail(of state: Todos.State, visible: [Row.State]) -> [String] {
    let done = state.rows.count { $0.isDone }
    var summary = "\(state.rows.count) \(state.rows.count == 1 ? "todo" : "todos"), \(done) done"
    if state.filter != .all { summary += " · showing \(state.filter.rawValue)" }
    if !state.search.isEmpty { summary += " · search \"\(state.search.shownSafely())\"" }
    var lines = [summary]
    if let editor = state.editor, let position = visible.firstIndex(where: { $0.id == editor.rowID }) {
      lines.append(
        "editing \(position + 1): \"\(editor.draft.shownSafely())\" (text TITLE, then commit or discard)")
    } else if let editor = state.editor {
      lines.append(
        "editing a hidden todo: \"\(editor.draft.shownSafely())\" (text TITLE, then commit or discard)")
    }
    return lines
  }

  /// What changed between two lists, in words: `"Buy milk" added, "Call mom" changed`.
  static func change(from old: IdentifiedArrayOf<Row.State>, to new: IdentifiedArrayOf<Row.State>) -> String {
    var parts: [String] = []
    for row in new where old[id: row.id] == nil { parts.append("\"\(row.title.shownSafely())\" added") }
    for row in old where new[id: row.id] == nil { parts.append("\"\(row.title.shownSafely())\" removed") }
    for row in new where old[id: row.id].map({ $0 != row }) ?? false {
      parts.append("\"\(row.title.shownSafely())\" changed")
    }
    if parts.isEmpty { return "the order of the list changed" }
    let shown = parts.prefix(3).joined(separator: ", ")
    return parts.count > 3 ? shown + ", and \(parts.count - 3) more" : shown
  }

  /// The list of commands.
  static var help: String {
    let width = Command.summary.map(\.spelling.count).max() ?? 0
    return
      (["Commands:"]
      + Command.summary.map {
        "  " + $0.spelling + String(repeating: " ", count: width - $0.spelling.count + 2) + $0.meaning
      }).joined(separator: "\n")
  }
}
