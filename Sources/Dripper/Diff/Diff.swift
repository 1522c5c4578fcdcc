/// Compares two values as text, line by line: what ``Dripper/logChanges(to:label:)`` prints, and
/// what the test harness shows when a state is not what a test expected.
///
/// ```
///   Counter.State(
/// -   count: 0
/// +   count: 1
///     name: "a"
///   )
/// ```
///
/// Removed lines start with `-`, added ones with `+`; long runs of unchanged lines are folded into
/// `… (N unchanged)`.
package enum Diff {
  /// The lines of the difference between two values, or `nil` if they render the same.
  package static func lines(from old: Any, to new: Any, context: Int = 2) -> [String]? {
    lines(from: Dump.lines(old), to: Dump.lines(new), context: context)
  }

  /// The difference between two values as one text, or `nil` if they render the same.
  package static func text(from old: Any, to new: Any, context: Int = 2) -> String? {
    lines(from: old, to: new, context: context)?.joined(separator: "\n")
  }

  enum Edit: Equatable {
    case same(String)
    case removed(String)
    case added(String)
  }

  /// The difference between two texts, or `nil` if they are the same.
  package static func lines(from old: [String], to new: [String], context: Int = 2) -> [String]? {
    guard old != new else { return nil }
    return fold(edits(from: old, to: new), context: context)
  }

  /// The edits that turn `old` into `new`: a longest common subsequence of lines, after trimming
  /// the common start and end (so a small change in a large value costs little).
  static func edits(from old: [String], to new: [String]) -> [Edit] {
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      suffix += 1
    }
    let oldMiddle = Array(old[prefix..<(old.count - suffix)])
    let newMiddle = Array(new[prefix..<(new.count - suffix)])
    var edits = old[..<prefix].map(Edit.same)
    if oldMiddle.count * newMiddle.count > 4_000_000 {
      // Too large for a table: everything in between changed.
      edits += oldMiddle.map(Edit.removed) + newMiddle.map(Edit.added)
    } else {
      edits += commonSubsequenceEdits(oldMiddle, newMiddle)
    }
    edits += old[(old.count - suffix)...].map(Edit.same)
    return edits
  }

  private static func commonSubsequenceEdits(_ old: [String], _ new: [String]) -> [Edit] {
    // lengths[i][j]: the length of the longest common subsequence of old[i...] and new[j...].
    var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
      for j in stride(from: new.count - 1, through: 0, by: -1) {
        lengths[i][j] =
          old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
      }
    }
    var edits: [Edit] = []
    var (i, j) = (0, 0)
    while i < old.count || j < new.count {
      if i < old.count, j < new.count, old[i] == new[j] {
        edits.append(.same(old[i]))
        (i, j) = (i + 1, j + 1)
      } else if j < new.count, i == old.count || lengths[i][j + 1] >= lengths[i + 1][j] {
        edits.append(.added(new[j]))
        j += 1
      } else {
        edits.append(.removed(old[i]))
        i += 1
      }
    }
    // Show removals before additions within each changed run, as diffs usually do.
    var ordered: [Edit] = []
    var run: [Edit] = []
    func flush() {
      ordered += run.filter { if case .removed = $0 { true } else { false } }
      ordered += run.filter { if case .added = $0 { true } else { false } }
      run.removeAll()
    }
    for edit in edits {
      if case .same = edit {
        flush()
        ordered.append(edit)
      } else {
        run.append(edit)
      }
    }
    flush()
    return ordered
  }

  /// Renders edits, keeping `context` unchanged lines around each change and folding the rest.
  private static func fold(_ edits: [Edit], context: Int) -> [String] {
    let changed = edits.indices.filter { if case .same = edits[$0] { false } else { true } }
    var keep = Set<Int>()
    for index in changed {
      for near in max(0, index - context)...min(edits.count - 1, index + context) { keep.insert(near) }
    }
    var lines: [String] = []
    var skipped: [String] = []
    func flushSkipped() {
      // Folding a single line would take as much room as showing it.
      if skipped.count == 1 {
        lines.append("  " + skipped[0])
      } else if !skipped.isEmpty {
        lines.append("  … (\(skipped.count) unchanged)")
      }
      skipped.removeAll()
    }
    for (index, edit) in edits.enumerated() {
      guard keep.contains(index) else {
        if case .same(let line) = edit { skipped.append(line) }
        continue
      }
      flushSkipped()
      switch edit {
      case .same(let line): lines.append("  " + line)
      case .removed(let line): lines.append("- " + line)
      case .added(let line): lines.append("+ " + line)
      }
    }
    flushSkipped()
    return lines
  }
}
