/// An action for one element of a list: the element's id and its action.
///
/// The parent's action embeds it: `case rows(IdentifiedAction<Row.State.ID, Row.Action>)`, poured
/// as `.rows(.element(id: id, action: .toggle))`.
public enum IdentifiedAction<ID: Hashable & Sendable, Action: Sendable>: Sendable {
  /// An action for the element with `id`.
  case element(id: ID, action: Action)
}

/// Encodable as its id and its action, so that a feature's actions can be written to a journal
/// (see ``Dripper/recording(to:hashing:encode:)``) with a `Codable` encoder.
extension IdentifiedAction: Encodable where ID: Encodable, Action: Encodable {}

/// Decodable from what ``IdentifiedAction``'s `Encodable` conformance writes.
extension IdentifiedAction: Decodable where ID: Decodable, Action: Decodable {}

/// The action of a list of `Element` features: `IdentifiedActionOf<Row>` is
/// `IdentifiedAction<Row.State.ID, Row.Action>`.
public typealias IdentifiedActionOf<Element: Dripper> = IdentifiedAction<Element.State.ID, Element.Action>
where Element.State: Identifiable, Element.State.ID: Sendable

extension CasePath {
  /// The case path to the action of the element with `id`, through a case path to a list's
  /// actions: for `TestStation` receives and for scoping to one row.
  ///
  /// ```swift
  /// await station.receive(CasePath.rows[id: 2].appending(.favoriteResponse), true)
  /// ```
  public subscript<ID: Hashable & Sendable, ElementAction: Sendable>(id id: ID) -> CasePath<
    Root, ElementAction
  >
  where Value == IdentifiedAction<ID, ElementAction> {
    let (embed, extract) = (self.embed, self.extract)
    return CasePath<Root, ElementAction>(
      { embed(.element(id: id, action: $0)) },
      extract: { root in
        guard case .element(let elementID, let action)? = extract(root), elementID == id else { return nil }
        return action
      })
  }
}

extension IdentifiedAction: Equatable where Action: Equatable {}
extension IdentifiedAction: Hashable where Action: Hashable {}
