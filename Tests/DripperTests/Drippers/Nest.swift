import DripperTesting
import Testing

@testable import Dripper

/// Five features, each scoping the next (`Nest5` down to `Nest1`), with `Child` at the bottom.
struct Nest5: Dripper {
  struct State: Equatable, Sendable { var inner = Nest4.State() }
  enum Action: Sendable { case inner(Nest4.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest4() } }
}

struct Nest4: Dripper {
  struct State: Equatable, Sendable { var inner = Nest3.State() }
  enum Action: Sendable { case inner(Nest3.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest3() } }
}

struct Nest3: Dripper {
  struct State: Equatable, Sendable { var inner = Nest2.State() }
  enum Action: Sendable { case inner(Nest2.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest2() } }
}

struct Nest2: Dripper {
  struct State: Equatable, Sendable { var inner = Nest1.State() }
  enum Action: Sendable { case inner(Nest1.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Nest1() } }
}

struct Nest1: Dripper {
  struct State: Equatable, Sendable { var inner = Child.State() }
  enum Action: Sendable { case inner(Child.Action) }
  var body: some DripperOf<Self> { Scope(state: \.inner, action: .inner) { Child() } }
}

extension CasePath<Nest5.Action, Nest4.Action> {
  static var inner: Self { Self(Nest5.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest4.Action, Nest3.Action> {
  static var inner: Self { Self(Nest4.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest3.Action, Nest2.Action> {
  static var inner: Self { Self(Nest3.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest2.Action, Nest1.Action> {
  static var inner: Self { Self(Nest2.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}
extension CasePath<Nest1.Action, Child.Action> {
  static var inner: Self { Self(Nest1.Action.inner) { if case .inner(let a) = $0 { a } else { nil } } }
}

/// A ticker that pours a tick one second after it starts.
