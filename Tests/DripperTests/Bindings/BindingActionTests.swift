import Dispatch
import Foundation
import Testing

@testable import Dripper

/// A form with a field of each kind a binding action carries: small plain values as bytes, text
/// as its string, everything else (computed, observed, large) in one object.
private struct Form: Sendable {
  struct Point: Equatable, Sendable {
    var x = 0
  }
  enum Filter: Equatable, Sendable { case all, open, done }

  var count = 0
  var isOn = false
  var ratio = 0.0
  var filter = Filter.all
  var query = ""
  var point = Point()
  var tags: [String] = []
  var limit: Int? = nil
  var observedChanges = 0
  var observed = 0 { didSet { observedChanges += 1 } }
  var doubled: Int {
    get { count * 2 }
    set { count = newValue / 2 }
  }
}

private typealias Binding = BindingAction<Form>

private enum FormAction: BindableAction, Equatable {
  case binding(BindingAction<Form>)
  case other

  var binding: BindingAction<Form>? {
    switch self {
    case .binding(let action): action
    default: nil
    }
  }
}

@Suite struct BindingActionTests {
  @Test func eachKindOfFieldTravelsAsExpected() {
    #expect(kind(of: .set(\.count, 7)) == "bytes")
    #expect(kind(of: .set(\.isOn, true)) == "bytes")
    #expect(kind(of: .set(\.filter, .done)) == "bytes")
    #expect(kind(of: .set(\.point.x, 3)) == "bytes")
    #expect(kind(of: .set(\.query, "milk")) == "text")
    // Larger than eight bytes, not plain, computed, observed: one object.
    #expect(kind(of: .set(\.limit, 3)) == "object")
    #expect(kind(of: .set(\.tags, ["a"])) == "object")
    #expect(kind(of: .set(\.doubled, 8)) == "object")
    #expect(kind(of: .set(\.observed, 1)) == "object")
  }

  @Test func eachKindSetsItsFieldAndNothingElse() {
    var form = Form()
    for action: Binding in [
      .set(\.count, 7), .set(\.isOn, true), .set(\.ratio, 0.5), .set(\.filter, .done), .set(\.point.x, 3),
      .set(\.query, "a query longer than fifteen bytes"), .set(\.limit, 3), .set(\.tags, ["a"]),
    ] {
      action.set(&form)
    }
    #expect(form.count == 7 && form.isOn && form.ratio == 0.5 && form.filter == .done)
    #expect(form.point.x == 3 && form.query == "a query longer than fifteen bytes")
    #expect(form.limit == 3 && form.tags == ["a"])
    Binding.set(\.doubled, 10).set(&form)
    #expect(form.count == 5)
  }

  @Test func aBindingStaysSmallSoThatItsActionEnumDoes() {
    // Three words and a tag: a string and its field, at most. A wider payload widens every
    // action of the enum, and every `Effect` that sends one (a 48-byte payload made plain
    // pours cost 2x in `dripper-bench --filter composition`).
    #expect(MemoryLayout<Binding>.size <= 25)
  }

  @Test func anObservedFieldRunsItsObserver() {
    var form = Form()
    Binding.set(\.observed, 4).set(&form)
    #expect(form.observed == 4)
    #expect(form.observedChanges == 1)
  }

  @Test func actionsCompareByFieldAndByTheValuesOwnEquality() {
    #expect(Binding.set(\.count, 1) == .set(\.count, 1))
    #expect(Binding.set(\.count, 1) != .set(\.count, 2))
    // Equal by `==`, not by bytes.
    #expect(Binding.set(\.ratio, 0.0) == .set(\.ratio, -0.0))
    #expect(Binding.set(\.ratio, .nan) != .set(\.ratio, .nan))
    #expect(Binding.set(\.query, "milk") == .set(\.query, "milk"))
    #expect(Binding.set(\.query, "milk") != .set(\.query, "eggs"))
    #expect(Binding.set(\.tags, ["a"]) == .set(\.tags, ["a"]))
    #expect(Binding.set(\.tags, ["a"]) != .set(\.tags, ["b"]))
  }

  @Test func aFieldInsideAnotherIsNotThatField() {
    // `point` and `point.x` start at the same byte and are the same size: different fields.
    let outer = Binding.set(\.point, Form.Point(x: 1))
    let inner = Binding.set(\.point.x, 1)
    #expect(outer != inner)
    #expect(matches(\.point, inner) == false)
    #expect(matches(\.point.x, inner))
    #expect(matches(\.point, outer))
    #expect(inner.value(at: \.point) == nil)
    #expect(inner.value(at: \.point.x) == 1)
  }

  @Test func theKeyPathAndValueComeBackForEachKind() {
    #expect(Binding.set(\.count, 7).keyPath as AnyKeyPath == \Form.count)
    #expect(Binding.set(\.count, 7).value as? Int == 7)
    #expect(Binding.set(\.filter, .open).value as? Form.Filter == .open)
    #expect(Binding.set(\.query, "milk").keyPath as AnyKeyPath == \Form.query)
    #expect(Binding.set(\.doubled, 8).keyPath as AnyKeyPath == \Form.doubled)
    #expect(Binding.set(\.point.x, 3).description == #".set(\Form.point.x, 3)"#)
    #expect(Binding.set(\.isOn, true).description == #".set(\Form.isOn, true)"#)
    #expect(Binding.set(\.query, "milk").description == #".set(\Form.query, "milk")"#)
  }

  @Test func actionsMadeInGenericCodeAreReadInSpecializedCode() {
    // `BindableAction.set` makes the binding in code generic over the action; the feature reads
    // it in code specialized for its types.
    let actions: [FormAction] = [.set(\.count, 7), .set(\.query, "milk"), .set(\.tags, ["a"])]
    var form = Form()
    for action in actions { action.binding?.set(&form) }
    #expect(form.count == 7 && form.query == "milk" && form.tags == ["a"])
    #expect(
      actions.map(\.binding?.description)
        == [#".set(\Form.count, 7)"#, #".set(\Form.query, "milk")"#, #".set(\Form.tags, [[0]: "a"])"#])
  }

  @Test func aPatternNeverBoundMatchesNothing() {
    #expect(matches(\.ratio, .set(\.count, 1)) == false)
    #expect(matches(\.observedChanges, .set(\.count, 1)) == false)
  }

  @Test func manyOSThreadsFilingTheSameNewFieldsAgree() async {
    // Fields no other test binds, so that the threads race to file them.
    struct Fresh: Sendable {
      var a = 0
      var b = false
      var c = ""
    }
    typealias FreshBinding = BindingAction<Fresh>
    let threads = 8
    let results = Lock([[FreshBinding]](repeating: [], count: threads))
    let finished = DispatchGroup()
    for thread in 0..<threads {
      finished.enter()
      Thread {
        let made = (0..<200).flatMap { n -> [FreshBinding] in
          [.set(\.a, n), .set(\.b, n.isMultiple(of: 2)), .set(\.c, "\(n)")]
        }
        results.withLock { $0[thread] = made }
        finished.leave()
      }.start()
    }
    await withCheckedContinuation { continuation in
      finished.notify(queue: .global()) { continuation.resume() }
    }
    let made = results.withLock { $0 }
    for actions in made {
      #expect(actions.count == 600)
      #expect(actions == made[0])
    }
    var fresh = Fresh()
    for action in made[0] { action.set(&fresh) }
    #expect(fresh.a == 199 && !fresh.b && fresh.c == "199")
  }

  private func kind(of action: Binding) -> String {
    switch action.field {
    case .stored: "bytes"
    case .text: "text"
    case .other: "object"
    }
  }

  private func matches(_ keyPath: any PartialKeyPath<Form> & Sendable, _ action: Binding) -> Bool {
    keyPath ~= action
  }
}
