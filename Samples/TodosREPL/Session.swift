import Dripper
import REPLSupport
import Synchronization

/// A Todos session: reads commands, pours their actions, writes the list each time it changes.
struct Session {
  let console: Console
  /// Where `save` and `load` go without a path, or why there is no such place.
  let defaultPath: Result<String, PersistenceError>
  /// Whether to load `defaultPath` before the first command: `--file PATH` always (a missing file
  /// is an empty list, said so), the default file (`~/.todos.json`) when it exists.
  var loadsAtStart = LoadAtStart.no

  enum LoadAtStart {
    case no
    /// `--file PATH`: a missing file is an empty list, said so.
    case always
    /// The default file, when there is one: the list the last session saved there.
    case ifPresent
  }
  /// The folder of a durable journal that keeps the list (`--journal DIR`), or `nil` for a list
  /// kept by `save` (see ``Journaling``).
  var journal: String?
  /// Changes the Station's dependencies: a test clock, predictable ids.
  let dependencies: @Sendable (inout DependencyValues) -> Void
  /// Ctrl-C presses (``Interrupts/stream()`` in the program, a stream of its own in tests).
  var interrupts: AsyncStream<Void>?
  /// Leaves the program after Ctrl-C at an idle prompt twice in a row, once any unsaved changes
  /// were warned of.
  var exitOnInterrupt: @Sendable () -> Void = {}

  init(
    console: Console, defaultPath: Result<String, PersistenceError>,
    dependencies: @escaping @Sendable (inout DependencyValues) -> Void
  ) {
    self.console = console
    self.defaultPath = defaultPath
    self.dependencies = dependencies
  }

  /// Runs until `quit` or the end of `lines`, then cancels what still runs.
  func run(_ lines: some AsyncSequence<String, Never>) async {
    let console = self.console
    let colors = console.usesColor
    // The filter is a shared value, kept in a file next to the list.
    // The settings go next to the list's file, or in the journal's folder.
    if let journal, let failure = AtomicFile.makeDirectory(journal) {
      return console.error(
        "error: cannot use \(journal.shownInMessage(limit: 100)) as a journal: \(failure.reason)")
    }
    let settings = Persistence.settings(
      nextTo: journal.map { $0 + "/todos.json" } ?? (try? defaultPath.get()))
    if let failure = settings.loadFailure { console.error("error: the settings were not loaded: \(failure)") }
    let initialState = Todos.State(filter: Shared(settings))
    // Writes the list each time a reduction changes what it shows, whatever caused it. It compares
    // with what it last wrote, not with the state before the reduction: a shared value (the
    // filter) reads the same, as it is now, in both.
    let lastShown = Mutex(Rendering.Shown(initialState, colors: colors))
    let durable = journal.map { Journaling.durable(at: $0, filter: settings) }
    let printer = DripperObserver<Todos.State, Todos.Action>(
      didReduce: { transition in
        let update = lastShown.withLock { Rendering.update(&$0, to: transition.new, colors: colors) }
        if let update { console.stateLine(update) }
      },
      diagnostic: { diagnostic in
        // A journal that cannot record is said once, by the session, which then stops.
        if let failure = durable?.writeFailure, diagnostic.message.hasSuffix(failure.message) { return }
        console.note(diagnostic.description)
      })
    let station: StationOf<Todos>
    if let durable {
      do {
        station = try Station.recovering(from: durable, initialState: initialState, observers: [printer]) {
          Todos()
        } withDependencies: {
          dependencies(&$0)
        }
      } catch {
        return console.error("error: \(error)")
      }
      // The printer shows what changes from the recovered list on.
      let recovered = Rendering.Shown(await station.state, colors: colors)
      lastShown.withLock { $0 = recovered }
      // A torn last line, or a replay that differs, is said by the Station, as a diagnostic.
      if let recovery = durable.recovery {
        if recovery.lastSequence > 0 {
          console.line(
            "resumed the list in \(durable.directory.shownInMessage(limit: 100)): \(recovery.lastSequence) actions"
          )
        }
      }
    } else {
      station = Station(initialState: initialState, observers: [printer]) {
        Todos()
      } withDependencies: {
        dependencies(&$0)
      }
    }
    if console.isInteractive {
      console.line("Todos REPL: type 'help' for the commands, 'quit' to leave.")
      console.line(Rendering.view(of: await station.state, colors: colors))
    }
    var pending: [PourTask] = []
    // `quit` drops what is pending; the end of the input lets it finish (a piped `search` as the
    // last command still shows its result).
    var quitting = false
    var journalFailed = false
    // Leaving a typed session with unsaved changes is asked once (see ``LeaveGuard``).
    // A journaled list has nothing unsaved.
    let leaving = LeaveGuard(isInteractive: console.isInteractive && journal == nil)
    let tracker = InterruptTracker()
    let interruptHandler = interrupts.map { interrupts in
      Task { [exitOnInterrupt] in
        for await _ in interrupts {
          let state = await station.state
          switch tracker.interrupted(workIsRunning: state.query != state.search) {
          case .cancelWork:
            // A search waiting for typing to pause: it is dropped.
            console.interrupted()
            await station.pour(.queryChanged(state.search)).finish()
            console.showPrompt()
          case .clearLine:
            console.interrupted()
            console.showPrompt()
          case .exit:
            if leaving.mayLeave(state, console: console) {
              exitOnInterrupt()
            } else {
              tracker.lineRead()
              console.showPrompt()
            }
          }
        }
      }
    }
    defer { interruptHandler?.cancel() }
    // A journal that holds a list keeps it: `--file` then names where `save` goes.
    let journalIsNew = (durable?.recovery?.lastSequence ?? 0) == 0
    if loadsAtStart != .no, journalIsNew, case .success(let path) = defaultPath,
      loadsAtStart == .always || Persistence.exists(path)
    {
      switch await outcome(of: .openCommand(path: path), on: station) {
      case .failure(let error): console.error("error: \(error)")
      case .success(let message?): console.line(message)
      case .success(nil): break
      }
    }
    console.showPrompt()
    for await line in lines {
      tracker.lineRead()
      if line == StandardInput.endOfInputLine {
        // Ctrl-D at a prompt: leave, unless there are unsaved changes not yet warned of.
        if leaving.mayLeave(await station.state, console: console) { break }
        console.showPrompt()
        continue
      }
      console.leavePrompt(line)
      // An empty line does nothing, as at a shell's prompt.
      if line.allSatisfy(\.isWhitespace) {
        console.showPrompt()
        continue
      }
      let command: Command
      switch Command.parse(line) {
      case .failure(let error):
        console.error("error: \(error)")
        console.showPrompt()
        continue
      case .success(let parsed):
        command = parsed
      }
      if command == .quit {
        guard leaving.mayLeave(await station.state, console: console) else {
          console.showPrompt()
          continue
        }
        quitting = true
        break
      }
      switch await execute(command, on: station, pending: &pending) {
      case .failure(let error): console.error("error: \(error)")
      case .success(let message?): console.line(message)
      case .success(nil): break
      }
      // The reduction, and the list it writes, happen before the next command is read.
      await station.reducePending()
      // A journal that cannot record (a full disk): said once, and no more changes are taken.
      if let failure = durable?.writeFailure {
        console.error("error: \(failure): the journal cannot record, so the session stops taking changes")
        journalFailed = true
        break
      }
      console.showPrompt()
    }
    if console.isInteractive { console.line("") }
    if quitting { for task in pending { task.cancel() } }
    for task in pending { await task.finish() }
    if let error = await settings.flush() { console.error("error: the settings were not saved: \(error)") }
    do throws(JournalError) {
      try durable?.close()
    } catch {
      if !journalFailed { console.error("error: the journal was not closed: \(error)") }
    }
    // A script's changes that no `save` kept are lost: said, and the exit status is 1 (a person
    // at a terminal is asked before leaving instead).
    if journal == nil, !console.isInteractive, !journalFailed, await station.state.hasUnsavedChanges {
      console.error(
        "error: the input ended with changes that were not saved: end it with 'save' to keep them")
    }
  }

  /// The file a `save` or `load` of `path` means: `path`, or the default one.
  private func file(_ path: String?) -> Result<String, CommandError> {
    if let path { return .success(path) }
    return defaultPath.mapError { CommandError($0.message) }
  }

  /// Pours a command the feature may refuse, with its effects, and says what it came to.
  private func outcome(
    of action: Todos.Action, on station: StationOf<Todos>, savingWithPath named: Bool = false
  ) async -> Result<String?, CommandError> {
    await station.pour(action).finish()
    guard let outcome = await station.state.outcome else { return .success(nil) }
    return Rendering.message(for: outcome, savingWithPath: named)
  }

  /// Does one command; returns a message to show, or why it could not be done.
  private func execute(
    _ command: Command, on station: StationOf<Todos>, pending: inout [PourTask]
  ) async -> Result<String?, CommandError> {
    let state = await station.state
    func row(_ number: Int) -> Result<Row.State, CommandError> {
      let visible = state.visible
      guard number <= visible.count else {
        return .failure(
          CommandError(
            "no todo number \(number): the list shows \(visible.isEmpty ? "none" : "1 to \(visible.count)")"))
      }
      return .success(visible[number - 1])
    }
    func pour(_ action: Todos.Action) -> Result<String?, CommandError> {
      station.pour(action)
      return .success(nil)
    }
    func editing(_ action: Editor.Action) async -> Result<String?, CommandError> {
      // Awaited with its effects: `discard` closes the editor from an effect (it dismisses
      // itself), and the list must show that before the next command.
      await outcome(of: .editorCommand(action), on: station)
    }

    switch command {
    case .add(let title): return pour(.add(title))
    case .toggle(let number): return row(number).flatMap { pour(.rows(.element(id: $0.id, action: .toggle))) }
    case .rename(let number, let title):
      return row(number).flatMap { pour(.rows(.element(id: $0.id, action: .rename(title)))) }
    case .remove(let number): return row(number).flatMap { pour(.remove($0.id)) }
    case .edit(let number): return row(number).flatMap { pour(.edit($0.id)) }
    case .text(let draft): return await editing(.set(\.draft, draft))
    case .commit: return await editing(.commit)
    case .discard: return await editing(.discard)
    case .clearDone: return pour(.clearDone)
    case .filter(let filter): return pour(.setFilter(filter))
    case .search(let query):
      // Each search replaces the last, which it cancels: only the latest is kept until `wait`
      // (one per search was kept before, for the whole session).
      pending = [station.pour(.queryChanged(query))]
      return .success(nil)
    case .showFilter:
      return .success("showing \(state.filter.rawValue) todos")
    case .undo, .redo:
      let result = await outcome(of: command == .undo ? .undoCommand : .redoCommand, on: station)
      guard case .success(let done?) = result else { return result }
      // Said in words, since the filter or the search may hide what changed.
      return .success("\(done): \(Rendering.change(from: state.rows, to: await station.state.rows))")
    case .list:
      return .success(Rendering.view(of: state, colors: console.usesColor))
    case .save(let path), .forceSave(let path):
      return await file(path).asyncFlatMap { file in
        await outcome(
          of: .saveCommand(path: file, force: command == .forceSave(path)), on: station,
          savingWithPath: path != nil)
      }
    case .load(let path):
      return await file(path).asyncFlatMap { file in await outcome(of: .loadCommand(path: file), on: station)
      }
    case .wait:
      for task in pending { await task.finish() }
      pending.removeAll()
      return .success(nil)
    case .help:
      return .success(Rendering.help)
    case .quit:
      return .success(nil)
    }
  }
}

extension Result where Failure == CommandError {
  /// `transform` applied to the success, which it may turn into a failure.
  fileprivate func asyncFlatMap<New>(_ transform: (Success) async -> Result<New, CommandError>) async
    -> Result<
      New, CommandError
    >
  {
    switch self {
    case .success(let value): await transform(value)
    case .failure(let error): .failure(error)
    }
  }
}

/// Whether a typed session may leave: at once when the list is saved (or a script runs it); with
/// unsaved changes, a first request to leave (`quit`, Ctrl-D, Ctrl-C twice) warns and stays, and a
/// second leaves, unless the list changed again between the two.
final class LeaveGuard: Sendable {
  private let isInteractive: Bool
  /// The list when the user was last warned.
  private let warnedFor = Mutex<Document?>(nil)

  init(isInteractive: Bool) {
    self.isInteractive = isInteractive
  }

  /// Whether to leave now; warns on `console` when not.
  func mayLeave(_ state: Todos.State, console: Console) -> Bool {
    guard isInteractive, state.hasUnsavedChanges else { return true }
    let document = state.document
    let warnedBefore = warnedFor.withLock { warned in
      defer { warned = document }
      return warned == document
    }
    if warnedBefore { return true }
    console.line("The list has unsaved changes: 'save' keeps them; leave again to drop them.")
    return false
  }
}
