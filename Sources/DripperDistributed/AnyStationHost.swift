public import Dripper

/// A `StationHost` of any feature whose state is `State` and action `Action`: what a
/// ``DistributedStationHost`` serves, through closures made where the feature is known.
public struct AnyStationHost<Key: StationKey, State: Sendable, Action: Sendable>: Sendable {
  @usableFromInline let pour: @Sendable (Action, Key, String) async throws(HostError) -> PourReceipt
  @usableFromInline let state: @Sendable (Key) async throws(HostError) -> State
  @usableFromInline let finish: @Sendable (Key) async -> Void
  @usableFromInline let passivate: @Sendable (Key) async -> Void
  @usableFromInline let states: @Sendable (Key) -> AsyncStream<State>
  @usableFromInline let residentKeys: @Sendable () -> [Key]

  /// The host, erased. Inlinable: its closures are made where the feature is known, and run
  /// code specialized for it.
  @inlinable
  public init<Feature: Dripper>(_ host: StationHost<Key, Feature>)
  where Feature.State == State, Feature.Action == Action {
    pour = { action, key, id throws(HostError) in try await host.pour(action, to: key, id: id) }
    state = { key throws(HostError) in try await host.state(of: key) }
    finish = { key in await host.finish(key) }
    passivate = { key in await host.passivate(key) }
    states = { key in host.states(of: key) }
    residentKeys = { host.residentKeys }
  }
}
