public import Distributed
public import Dripper

/// A caller's end of a subscription to a key's states (see
/// ``DistributedStationHost/subscribe(_:_:version:)``): a distributed actor on the caller's node,
/// which the host's node calls with each state.
///
/// ```swift
/// let subscriber = KeyStateSubscriber<String, Cart.State, ClusterSystem>(actorSystem: system) { key, cart in
///   await render(cart)
/// }
/// let subscription = try await host.subscribe("cart-7", subscriber)
/// ```
public distributed actor KeyStateSubscriber<Key, State, ActorSystem>: Codable
where
  Key: StationKey & Codable, State: Sendable & Codable, ActorSystem: DistributedActorSystem<any Codable>,
  ActorSystem.ActorID: Codable
{
  private let onState: @Sendable (Key, State) async -> Void

  /// A subscriber on `actorSystem` that hands each state it receives to `onState`, one at a time.
  public init(actorSystem: ActorSystem, onState: @escaping @Sendable (Key, State) async -> Void) {
    self.actorSystem = actorSystem
    self.onState = onState
  }

  /// A key's state, from the node that hosts it.
  public distributed func receive(_ state: State, of key: Key) async {
    await onState(key, state)
  }
}
