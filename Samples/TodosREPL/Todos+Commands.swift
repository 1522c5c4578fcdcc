import Dripper

extension Todos {
  /// What a command that reports came to: what the REPL says after it, or why it was refused.
  enum Outcome: Equatable, Codable, Sendable {
    case saved(todos: Int, path: String)
    case loaded(todos: Int, path: String)
    /// `openCommand` found no file: the list starts empty and will be saved there.
    case startedEmpty(path: String)
    case undone
    case redone
    case refused(Refusal)
  }

  /// Why a command was not done.
  enum Refusal: Error, Equatable, Codable, Sendable {
    case nothingToUndo
    case nothingToRedo
    case nothingBeingEdited
    /// A save would replace a file this session did not load or create.
    case unknownFile(path: String)
    /// A save would replace a file another session wrote since this one read or wrote it.
    case changedElsewhere(path: String)
    /// The file could not be read or written.
    case files(PersistenceError)
  }

  /// The commands that may be refused, and their files: the rules the REPL follows, here so that
  /// tests check them with `TestStation` and files in memory.
  func command(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .saveCommand(let path, let force):
      state.outcome = nil
      let document = state.document
      let known = state.knownFiles.contains(path)
      let seen = state.seenFiles[path]
      return .run { [files] pour in
        if !force, !known, files.exists(path) {
          return await pour(.finished(.refused(.unknownFile(path: path))))
        }
        if !force, let seen, files.stamp(path) != seen {
          return await pour(.finished(.refused(.changedElsewhere(path: path))))
        }
        switch files.save(document, path) {
        case .success:
          await pour(.fileSeen(path: path, stamp: files.stamp(path), document: document))
          await pour(.finished(.saved(todos: document.todos.count, path: path)))
        case .failure(let error): await pour(.finished(.refused(.files(error))))
        }
      }
    case .loadCommand(let path):
      state.outcome = nil
      return .run { [files] pour in
        // The version first: a write between the two reads makes the save refuse, not lose it.
        let stamp = files.stamp(path)
        switch files.load(path) {
        case .success(let document):
          await pour(.fileSeen(path: path, stamp: stamp, document: document))
          await pour(.fileLoaded(document, path: path))
        case .failure(let error): await pour(.finished(.refused(.files(error))))
        }
      }
    case .openCommand(let path):
      state.outcome = nil
      return .run { [files] pour in
        guard files.exists(path) else {
          await pour(.fileSeen(path: path, stamp: .absent, document: Document(todos: [])))
          return await pour(.finished(.startedEmpty(path: path)))
        }
        await pour(.loadCommand(path: path))
      }
    case .fileSeen(let path, let stamp, let document):
      state.seenFiles[path] = stamp
      state.savedDocument = document
      return .none
    case .fileLoaded(let document, let path):
      state.rows = IdentifiedArray(document.todos)
      state.editor = nil
      state.knownFiles.insert(path)
      state.outcome = .loaded(todos: document.todos.count, path: path)
      return .none
    case .finished(let outcome):
      state.outcome = outcome
      switch outcome {
      case .saved(_, let path), .startedEmpty(let path): state.knownFiles.insert(path)
      default: break
      }
      return .none
    case .undoCommand, .redoCommand:
      let undoing = action == .undoCommand
      guard undoing ? state.history.canUndo : state.history.canRedo else {
        state.outcome = .refused(undoing ? .nothingToUndo : .nothingToRedo)
        return .none
      }
      state.outcome = undoing ? .undone : .redone
      return .send(undoing ? .undo : .redo)
    case .editorCommand(let action):
      guard state.editor != nil else {
        state.outcome = .refused(.nothingBeingEdited)
        return .none
      }
      state.outcome = nil
      return .send(.editor(.presented(action)))
    default:
      return .none
    }
  }

}
