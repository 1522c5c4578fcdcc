#if canImport(SwiftUI)
  public import SwiftUI

  extension ObservableStation where Action: BindableAction, Action.State == State {
    /// A SwiftUI binding to the field at `keyPath`: reading it reads the state, as the view's
    /// other reads do; writing it pours `.set(keyPath, value)` into the Station.
    ///
    /// ```swift
    /// TextField("Search", text: store.binding(\.query))
    /// Toggle("Open only", isOn: store.binding(\.onlyOpen))
    /// ```
    ///
    /// The field changes when the Station has reduced the binding action, a moment after the
    /// write, like any state the view shows.
    public func binding<Value: Equatable & Sendable>(
      _ keyPath: any WritableKeyPath<State, Value> & Sendable
    ) -> Binding<Value> {
      let readable: KeyPath<State, Value> = keyPath
      return Binding(
        get: { self[dynamicMember: readable] },
        set: { self.pour(.set(keyPath, $0)) })
    }
  }
#endif
