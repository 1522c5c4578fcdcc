import Testing

@testable import Dripper

/// Renders and diffs random values of every shape `Mirror` can describe, including custom mirrors
/// that do not look like what their display style promises: a diff must never crash the test
/// process it reports in (issue 40: a `StackState` did).
@Suite struct DiffFuzzTests {
  /// A mirror saying it is a dictionary (or any style) over children of any shape.
  struct Odd: CustomReflectable {
    let style: Mirror.DisplayStyle?
    let children: [(String?, Any)]

    var customMirror: Mirror {
      Mirror(self, children: children.map { (label: $0.0, value: $0.1) }, displayStyle: style)
    }
  }

  enum Payload {
    case none
    case one(Any)
    case pair(label: Any, Any)
  }

  struct Fields {
    var a: Any
    var b: Any?
  }

  final class Node {
    var value: Any
    /// Weak, so that a node pointing at itself (a cycle for the dump) is still freed: under
    /// LeakSanitizer a strong cycle is a leak.
    weak var next: Node?
    init(value: Any) { self.value = value }
  }

  /// A deterministic generator, so that a failure names its seed.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func value(depth: Int, _ random: inout SplitMix) -> Any {
    let leaves: [(inout SplitMix) -> Any] = [
      { Int.random(in: -3...3, using: &$0) },
      { ["", "a", "b\nc", "\"q\""].randomElement(using: &$0)! },
      { Bool.random(using: &$0) },
      { Duration.seconds(Int.random(in: 0...2, using: &$0)) },
      { _ in Optional<Int>.none as Any },
      { _ in () },
      { StackElementID(rawValue: Int.random(in: 0...3, using: &$0)) },
    ]
    guard depth > 0, Int.random(in: 0..<4, using: &random) != 0 else {
      return leaves.randomElement(using: &random)!(&random)
    }
    func child(_ random: inout SplitMix) -> Any { value(depth: depth - 1, &random) }
    func children(_ random: inout SplitMix) -> [Any] {
      (0..<Int.random(in: 0...3, using: &random)).map { _ in child(&random) }
    }
    let styles: [Mirror.DisplayStyle?] = [
      .struct, .class, .enum, .tuple, .optional, .collection, .dictionary, .set, nil,
    ]
    switch Int.random(in: 0..<11, using: &random) {
    case 0: return children(&random)
    case 1: return Optional(child(&random)) as Any
    case 2:
      switch Int.random(in: 0..<3, using: &random) {
      case 0: return Payload.none
      case 1: return Payload.one(child(&random))
      default: return Payload.pair(label: child(&random), child(&random))
      }
    case 3: return Fields(a: child(&random), b: Bool.random(using: &random) ? child(&random) : nil)
    case 4: return (child(&random), x: child(&random))
    case 5:
      var stack = StackState<Int>()
      for element in 0..<Int.random(in: 0...3, using: &random) { stack.append(element) }
      return stack
    case 6:
      return Dictionary(
        uniqueKeysWithValues: children(&random).enumerated().map { ("\($0.offset)", $0.element) })
    case 7: return Set((0..<Int.random(in: 0...3, using: &random)).map { $0 * 2 })
    case 8:
      let node = Node(value: child(&random))
      if Bool.random(using: &random) { node.next = node }  // A cycle.
      return node
    default:
      let odd = children(&random).map { value -> (String?, Any) in
        (Bool.random(using: &random) ? "k" : nil, value)
      }
      return Odd(style: styles.randomElement(using: &random)!, children: odd)
    }
  }

  @Test func randomValuesRenderAndDiffWithoutCrashing() {
    for seed in 0..<3_000 as Range<UInt64> {
      var random = SplitMix(state: seed)
      let old = Self.value(depth: 4, &random)
      let new = Self.value(depth: 4, &random)
      let oldLines = Dump.lines(old)
      let newLines = Dump.lines(new)
      _ = Dump.line(old)
      let diff = Diff.lines(from: old, to: new)
      #expect((diff == nil) == (oldLines == newLines), "seed \(seed)")
      #expect(Diff.lines(from: old, to: old) == nil, "seed \(seed)")
    }
  }

  struct Row: Sendable {
    var a: Int
    var b: String?
  }

  @Test func aStackStateRendersEachElementWithItsID() {
    var stack = StackState<Row>()
    stack.append(Row(a: 1, b: nil))
    stack.append(Row(a: 2, b: "two"))
    #expect(
      Dump.lines(stack) == [
        "[",
        "  #0: DiffFuzzTests.Row(a: 1, b: nil)",
        "  #1: DiffFuzzTests.Row(a: 2, b: \"two\")",
        "]",
      ])
  }
}
