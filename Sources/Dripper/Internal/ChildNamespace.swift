/// The namespace of a child feature's effects: where the child lives in its parent's state, and,
/// for a list element, its id.
@usableFromInline
struct ChildNamespace: Hashable, Sendable, CustomStringConvertible {
  @usableFromInline
  enum Location: Hashable, Sendable {
    case keyPath(any AnyKeyPath & Sendable)
    case type(ObjectIdentifier, String)

    @usableFromInline
    static func == (lhs: Location, rhs: Location) -> Bool {
      switch (lhs, rhs) {
      case (.keyPath(let left), .keyPath(let right)): (left as AnyKeyPath) == (right as AnyKeyPath)
      case (.type(let left, _), .type(let right, _)): left == right
      default: false
      }
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
      switch self {
      case .keyPath(let keyPath): hasher.combine(keyPath as AnyKeyPath)
      case .type(let type, _): hasher.combine(type)
      }
    }
  }

  let location: Location
  let id: AnySendableHashable?

  @usableFromInline
  init(_ keyPath: any AnyKeyPath & Sendable, id: AnySendableHashable? = nil) {
    location = .keyPath(keyPath)
    self.id = id
  }

  @usableFromInline
  init<T>(_ type: T.Type, id: AnySendableHashable? = nil) {
    location = .type(ObjectIdentifier(type), "\(type)")
    self.id = id
  }

  @usableFromInline
  var description: String {
    let place =
      switch location {
      case .keyPath(let keyPath): "\(keyPath as AnyKeyPath)"
      case .type(_, let name): name
      }
    return id.map { "\(place)[\($0)]" } ?? place
  }
}
