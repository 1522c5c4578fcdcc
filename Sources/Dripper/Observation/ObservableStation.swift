public import Observation
import Synchronization

/// A Station's state on the main actor, `Observable` with fine-grained updates: the adapter for
/// SwiftUI.
///
/// ```swift
/// @MainActor
/// struct CounterView: View {
///   let model = ObservableStation(initialState: Counter.State()) { Counter() }
///
///   var body: some View {
///     Text("\(model.count)")                  // re-rendered only when `count` changes
///     Button("+") { model.pour(.increase) }
///   }
/// }
/// ```
///
/// It follows the Station's ``Station/states`` on the main actor (one hop per new state, never per
/// action) and tells Observation only about the parts of the state that views read and that
/// changed. It is built on `ObservationRegistrar` without the `@Observable` macro, so it works
/// wherever the Observation module does, Linux included.
@MainActor
@dynamicMemberLookup
public final class ObservableStation<State: Sendable, Action: Sendable>: Observable {
  /// The Station it follows.
  public let station: Station<State, Action>
  private var current: State
  private let registrar = ObservationRegistrar()
  /// The parts of the state read so far: whether one changed, and how to say it did.
  private var watched: [AnyKeyPath: Watched] = [:]

  private struct Watched {
    let differs: (State, State) -> Bool
    let notify: (ObservableStation) -> Void
  }
  private let following = Lock<Task<Void, Never>?>(nil)

  /// Follows `station`, from its state once every action poured into it so far is reduced.
  ///
  /// ```swift
  /// let model = await ObservableStation(station: appStation)
  /// ```
  public convenience init(station: Station<State, Action>) async {
    self.init(following: station, from: await station.state)
  }

  /// Follows `station`, whose state is `initialState` now.
  private init(following station: Station<State, Action>, from initialState: State) {
    self.station = station
    self.current = initialState
    let states = station.states
    let task = Task { [weak self] in
      for await state in states {
        guard let self else { return }
        self.update(state)
      }
    }
    following.withLock { $0 = task }
  }

  /// Starts a Station and follows it.
  public convenience init<D: Dripper<State, Action>>(
    initialState: State,
    @DripperBuilder<State, Action> dripper: () -> D,
    withDependencies prepareDependencies: (inout DependencyValues) -> Void = { _ in }
  ) {
    self.init(
      following: Station(initialState: initialState, dripper: dripper, withDependencies: prepareDependencies),
      from: initialState)
  }

  deinit {
    following.withLock { $0?.cancel() }
  }

  /// The whole state; reading it makes a view depend on every change.
  public var state: State {
    registrar.access(self, keyPath: \.state)
    return current
  }

  /// A part of the state; reading it makes a view depend on that part only.
  public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
    registrar.access(self, keyPath: \.[dynamicMember: keyPath])
    if watched[keyPath] == nil {
      watched[keyPath] = Watched(
        differs: { old, new in Self.differ(old[keyPath: keyPath], new[keyPath: keyPath]) },
        notify: { station in
          station.registrar.withMutation(of: station, keyPath: \.[dynamicMember: keyPath]) {}
        })
    }
    return current[keyPath: keyPath]
  }

  /// Pours an action into the Station.
  @discardableResult
  public func pour(_ action: Action) -> PourTask {
    station.pour(action)
  }

  private func update(_ state: State) {
    let old = current
    current = state
    for part in watched.values where part.differs(old, state) { part.notify(self) }
    registrar.withMutation(of: self, keyPath: \.state) {}
  }

  /// Whether two values differ: by `==` when they are `Equatable`, always otherwise.
  private static func differ<Value>(_ old: Value, _ new: Value) -> Bool {
    !(equalValues(old, new) ?? false)
  }
}
