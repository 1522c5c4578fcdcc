import Dripper
import DripperTesting
import Testing

/// A search form: a query and a toggle bound to the view, a page reset when the filter changes.
struct SearchForm: Dripper {
  struct State: Equatable, Sendable {
    var query = ""
    var onlyOpen = false
    var page = 3
    var searches = 0
    /// Not `Equatable`: compared by its text only.
    var draft = Draft(text: "", revision: 0)
  }
  struct Draft: Sendable {
    var text: String
    var revision: Int

    static func haveTheSameText(_ one: Draft, _ other: Draft) -> Bool { one.text == other.text }
  }
  enum Action: BindableAction, Equatable {
    case binding(BindingAction<State>)
    case search
    case edit(String)
    case validated

    var binding: BindingAction<State>? {
      switch self {
      case .binding(let action): action
      default: nil
      }
    }
  }

  var body: some DripperOf<Self> {
    // `onChange` sees the changes of the dripper it modifies: here, the bindings'.
    BindingDripper()
      .onChange(of: \.onlyOpen) { _, _ in
        Drip { state, _ in
          state.page = 0
          return .none
        }
      }
    Drip { state, action in
      switch action {
      case .binding(\.query): return .send(.search)
      case .binding: return .none
      case .search:
        state.searches += 1
        return .none
      case .edit(let text):
        state.draft.revision += 1
        if !text.isEmpty { state.draft.text = text }
        return .none
      case .validated: return .none
      }
    }
    .onChange(of: \.draft, removeDuplicates: Draft.haveTheSameText) { _, _ in .send(.validated) }
  }
}

extension SearchForm.State {
  static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.query, lhs.onlyOpen, lhs.page, lhs.searches, lhs.draft.text, lhs.draft.revision)
      == (rhs.query, rhs.onlyOpen, rhs.page, rhs.searches, rhs.draft.text, rhs.draft.revision)
  }
}

@Suite struct BindingTests {
  @Test func aBindingSetsItsFieldAndTheFeatureReactsToIt() async {
    let station = TestStation(initialState: SearchForm.State()) { SearchForm() }
    await station.pour(.set(\.query, "milk")) { $0.query = "milk" }
    await station.receive(.search) { $0.searches = 1 }
    // The mutating `onChange`: the page is reset in the same reduction as the toggle.
    await station.pour(.binding(.set(\.onlyOpen, true))) {
      $0.onlyOpen = true
      $0.page = 0
    }
    // Setting a field to the value it has is not a change.
    await station.pour(.set(\.onlyOpen, true))
    await station.finish()
  }

  @Test func removeDuplicatesDecidesWhatIsAChange() async {
    let station = TestStation(initialState: SearchForm.State()) { SearchForm() }
    await station.pour(.edit("")) { $0.draft.revision = 1 }
    await station.pour(.edit("a")) {
      $0.draft.revision = 2
      $0.draft.text = "a"
    }
    await station.receive(.validated)
    await station.finish()
  }

  @Test func bindingActionsCompareAndPrintByKeyPathAndValue() {
    typealias Binding = BindingAction<SearchForm.State>
    #expect(Binding.set(\.query, "milk") == .set(\.query, "milk"))
    #expect(Binding.set(\.query, "milk") != .set(\.query, "eggs"))
    #expect(Binding.set(\.searches, 1) != .set(\.page, 1))
    #expect(Binding.set(\.query, "milk").value(at: \.query) == "milk")
    #expect(Binding.set(\.query, "milk").value(at: \.onlyOpen) == nil)
    #expect(Binding.set(\.query, "milk").description == #".set(\State.query, "milk")"#)
  }

  @Test func aWrongBindingFailsWithTheBindingInTheMessage() async {
    let station = TestStation(initialState: SearchForm.State()) { SearchForm() }
    await withExpectedFailure {
      await station.pour(.set(\.query, "milk")) { $0.query = "eggs" }
    } matching: {
      mentions("The state after pouring .binding(.set(\\State.query, \"milk\")) is not what was expected")($0)
    }
    await withExpectedFailure {
      await station.receive(.set(\.query, "eggs"))
    } matching: { _ in
      true
    }
    await station.skipReceivedActions(strict: false)
    await station.finish()
  }
}

/// Issue 53: bindings that arrive inside a view-action enum, as TCA's `BindingReducer(action: \.view)`.
private struct Settings: Dripper {
  struct State: Equatable, Sendable {
    var name = ""
    var saved = 0
  }
  enum Action: Equatable, Sendable {
    case view(View)
    case savedElsewhere
    enum View: BindableAction, Equatable, Sendable {
      case binding(BindingAction<State>)
      case saveTapped
      var binding: BindingAction<State>? { if case .binding(let action) = self { action } else { nil } }
    }
  }
  var body: some DripperOf<Self> {
    BindingDripper(action: .view)
    Drip { state, action in
      switch action {
      case .view(.binding(\.name)): return .send(.savedElsewhere)
      case .view(.binding), .view(.saveTapped): return .none
      case .savedElsewhere:
        state.saved += 1
        return .none
      }
    }
  }
}

extension CasePath<Settings.Action, Settings.Action.View> {
  fileprivate static var view: Self {
    Self(Settings.Action.view) { if case .view(let v) = $0 { v } else { nil } }
  }
}

@Suite struct ViewActionBindingTests {
  @Test func bindingsInsideAViewActionAreApplied() async {
    let station = TestStation(initialState: Settings.State()) { Settings() }
    await station.pour(.view(.set(\.name, "Blob"))) { $0.name = "Blob" }
    await station.receive(.savedElsewhere) { $0.saved = 1 }
    await station.pour(.view(.saveTapped))
  }
}
