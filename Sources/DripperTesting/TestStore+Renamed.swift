/// TCA's `TestStore`: ``TestStation``.
@available(*, unavailable, renamed: "TestStation")
public typealias TestStore<State: Equatable & Sendable, Action: Sendable> = TestStation<State, Action>
