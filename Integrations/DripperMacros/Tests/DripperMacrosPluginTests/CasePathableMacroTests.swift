import DripperMacrosPlugin
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

// The expansions `@CasePathable` writes, and what it refuses, case by case: the edges
// swift-case-paths' own macro tests pin down (no cases, `Never`, element lists, access, overloaded
// names, non-enums, redundant conformances, wildcards, `Self`, defaults, `#if`, `@available`,
// generic payloads, several values), and Dripper's own (a `BindableAction`'s `binding`).

@Suite struct CasePathableMacroTests {
  @Test func casesOfEveryShape() {
    expect(
      """
      @CasePathable enum Foo {
        case bar
        case baz(Int)
        case fizz(buzz: String)
        case fizzier(Int, buzzier: String)
        case wild(_ int: Int, _ bool: Bool)
        case defaults(int: Int = 42, bool: Bool = true)
        case recursive(Box<Self>)
        case never(Never)
      }
      """,
      expands: """
        enum Foo {
          case bar
          case baz(Int)
          case fizz(buzz: String)
          case fizzier(Int, buzzier: String)
          case wild(_ int: Int, _ bool: Bool)
          case defaults(int: Int = 42, bool: Bool = true)
          case recursive(Box<Self>)
          case never(Never)

          struct AllCasePaths: Sendable {
            var bar: CasePath<Foo, Void> {
              CasePath({ Foo.bar }, extract: { if case .bar = $0 { () } else { nil } })
            }
            var baz: CasePath<Foo, Int> {
              CasePath({ Foo.baz($0) }, extract: { if case .baz(let v0) = $0 { v0 } else { nil } })
            }
            var fizz: CasePath<Foo, String> {
              CasePath({ Foo.fizz(buzz: $0) }, extract: { if case .fizz(let v0) = $0 { v0 } else { nil } })
            }
            var fizzier: CasePath<Foo, (Int, buzzier: String)> {
              CasePath({ Foo.fizzier($0.0, buzzier: $0.1) }, extract: { if case .fizzier(let v0, let v1) = $0 { (v0, v1) } else { nil } })
            }
            var wild: CasePath<Foo, (Int, Bool)> {
              CasePath({ Foo.wild($0.0, $0.1) }, extract: { if case .wild(let v0, let v1) = $0 { (v0, v1) } else { nil } })
            }
            var defaults: CasePath<Foo, (int: Int, bool: Bool)> {
              CasePath({ Foo.defaults(int: $0.0, bool: $0.1) }, extract: { if case .defaults(let v0, let v1) = $0 { (v0, v1) } else { nil } })
            }
            var recursive: CasePath<Foo, Box<Foo>> {
              CasePath({ Foo.recursive($0) }, extract: { if case .recursive(let v0) = $0 { v0 } else { nil } })
            }
            var never: CasePath<Foo, Never> {
              CasePath({ Foo.never($0) }, extract: { if case .never(let v0) = $0 { v0 } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Foo: CasePathable {}
        """)
  }

  @Test func aTableWithNoCases() {
    expect(
      """
      @CasePathable enum Empty {}
      """,
      expands: """
        enum Empty {

          struct AllCasePaths: Sendable {}

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Empty: CasePathable {}
        """)
  }

  @Test func aPublicEnumsTableIsPublicAndListsEachElement() {
    expect(
      """
      @CasePathable public enum Foo {
        case bar(Int), baz(String)
      }
      """,
      expands: """
        public enum Foo {
          case bar(Int), baz(String)

          public struct AllCasePaths: Sendable {
            public var bar: CasePath<Foo, Int> {
              CasePath({ Foo.bar($0) }, extract: { if case .bar(let v0) = $0 { v0 } else { nil } })
            }
            public var baz: CasePath<Foo, String> {
              CasePath({ Foo.baz($0) }, extract: { if case .baz(let v0) = $0 { v0 } else { nil } })
            }
          }

          public static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Foo: CasePathable {}
        """)
  }

  @Test func aPackageEnumsTableIsPackage() {
    expect(
      """
      @CasePathable package enum Foo {
        case bar
      }
      """,
      expands: """
        package enum Foo {
          case bar

          package struct AllCasePaths: Sendable {
            package var bar: CasePath<Foo, Void> {
              CasePath({ Foo.bar }, extract: { if case .bar = $0 { () } else { nil } })
            }
          }

          package static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Foo: CasePathable {}
        """)
  }

  @Test func conditionalCasesKeepTheirConditions() {
    expect(
      """
      @CasePathable enum Foo {
        case bar
        #if os(macOS)
        case mac
        #elseif DEBUG
        case debug(Int)
        #else
        case other
        #endif
      }
      """,
      expands: """
        enum Foo {
          case bar
          #if os(macOS)
          case mac
          #elseif DEBUG
          case debug(Int)
          #else
          case other
          #endif

          struct AllCasePaths: Sendable {
            var bar: CasePath<Foo, Void> {
              CasePath({ Foo.bar }, extract: { if case .bar = $0 { () } else { nil } })
            }
            #if os(macOS)
            var mac: CasePath<Foo, Void> {
              CasePath({ Foo.mac }, extract: { if case .mac = $0 { () } else { nil } })
            }
            #elseif DEBUG
            var debug: CasePath<Foo, Int> {
              CasePath({ Foo.debug($0) }, extract: { if case .debug(let v0) = $0 { v0 } else { nil } })
            }
            #else
            var other: CasePath<Foo, Void> {
              CasePath({ Foo.other }, extract: { if case .other = $0 { () } else { nil } })
            }
            #endif
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Foo: CasePathable {}
        """)
  }

  @Test func aCasesAvailabilityIsKept() {
    expect(
      """
      @CasePathable enum Foo {
        @available(*, deprecated, message: "Use bar")
        case old
        case bar
      }
      """,
      expands: """
        enum Foo {
          @available(*, deprecated, message: "Use bar")
          case old
          case bar

          struct AllCasePaths: Sendable {
            @available(*, deprecated, message: "Use bar")
            var old: CasePath<Foo, Void> {
              CasePath({ Foo.old }, extract: { if case .old = $0 { () } else { nil } })
            }
            var bar: CasePath<Foo, Void> {
              CasePath({ Foo.bar }, extract: { if case .bar = $0 { () } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Foo: CasePathable {}
        """)
  }

  @Test func aBindableActionGetsItsBinding() {
    expect(
      """
      @CasePathable enum View: BindableAction {
        case binding(BindingAction<State>)
      }
      """,
      expands: """
        enum View: BindableAction {
          case binding(BindingAction<State>)

          struct AllCasePaths: Sendable {
            var binding: CasePath<View, BindingAction<State>> {
              CasePath({ View.binding($0) }, extract: { if case .binding(let v0) = $0 { v0 } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }

          var binding: BindingAction<State>? { if case .binding(let action) = self { action } else { nil } }
        }

        extension View: CasePathable {}
        """)
  }

  @Test func aBindableActionWithMoreCasesMatchesItsBindingWithASwitch() {
    expect(
      """
      @CasePathable enum View: Dripper.BindableAction {
        case binding(BindingAction<State>)
        case submit
      }
      """,
      expands: """
        enum View: Dripper.BindableAction {
          case binding(BindingAction<State>)
          case submit

          struct AllCasePaths: Sendable {
            var binding: CasePath<View, BindingAction<State>> {
              CasePath({ View.binding($0) }, extract: { if case .binding(let v0) = $0 { v0 } else { nil } })
            }
            var submit: CasePath<View, Void> {
              CasePath({ View.submit }, extract: { if case .submit = $0 { () } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }

          var binding: BindingAction<State>? { switch self { case .binding(let action): action; default: nil } }
        }

        extension View: CasePathable {}
        """)
  }

  @Test func aBindingDeclaredIsKept() {
    expect(
      """
      @CasePathable enum View: BindableAction {
        case binding(BindingAction<State>)
        var binding: BindingAction<State>? { nil }
      }
      """,
      expands: """
        enum View: BindableAction {
          case binding(BindingAction<State>)
          var binding: BindingAction<State>? { nil }

          struct AllCasePaths: Sendable {
            var binding: CasePath<View, BindingAction<State>> {
              CasePath({ View.binding($0) }, extract: { if case .binding(let v0) = $0 { v0 } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension View: CasePathable {}
        """)
  }

  @Test func aGenericEnumsTableIsWrittenOnceForEveryParameter() {
    expect(
      """
      @CasePathable enum Action<TimeScope> {
        case load(TimeScope)
        case results([Self])
      }
      """,
      expands: """
        enum Action<TimeScope> {
          case load(TimeScope)
          case results([Self])

          struct AllCasePaths: Sendable {
            var load: CasePath<Action, TimeScope> {
              CasePath({ Action.load($0) }, extract: { if case .load(let v0) = $0 { v0 } else { nil } })
            }
            var results: CasePath<Action, [Action]> {
              CasePath({ Action.results($0) }, extract: { if case .results(let v0) = $0 { v0 } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }

        extension Action: CasePathable {}
        """)
  }

  @Test func aConformanceDeclaredIsNotRepeated() {
    expect(
      """
      @CasePathable enum Foo: CasePathable {
        case bar
      }
      """,
      expands: """
        enum Foo: CasePathable {
          case bar

          struct AllCasePaths: Sendable {
            var bar: CasePath<Foo, Void> {
              CasePath({ Foo.bar }, extract: { if case .bar = $0 { () } else { nil } })
            }
          }

          static var allCasePaths: AllCasePaths { AllCasePaths() }
        }
        """, conformances: [])
  }

  @Test func aStructIsRefused() {
    expect(
      """
      @CasePathable struct Foo {
      }
      """,
      expands: """
        struct Foo {
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'@CasePathable' applies to an enum, not to struct type 'Foo'", line: 1, column: 1)
      ])
  }

  @Test func anOverloadedCaseNameIsRefused() {
    expect(
      """
      @CasePathable enum Foo {
        case bar(Int)
        case bar(int: Int)
      }
      """,
      expands: """
        enum Foo {
          case bar(Int)
          case bar(int: Int)
        }

        extension Foo: CasePathable {}
        """,
      diagnostics: [
        DiagnosticSpec(
          message: "'@CasePathable' cannot name two cases 'bar': a table has one path a name; rename one",
          line: 3, column: 8)
      ])
  }
}
