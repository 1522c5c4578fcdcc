import SwiftSyntaxMacrosGenericTestSupport
import Testing

// The expansions `@Dripper` writes: TCA's `@Reducer` on a feature struct and on an enum of
// features, and what it refuses.

@Suite struct DripperMacroTests {
  @Test func anEnumOfFeaturesGetsItsStateActionAndBody() {
    expect(
      """
      @Dripper public enum Destination {
        case login(Login)
        case game(Games.Game<Int>)
        case alert(AlertState<Alert>)
      }
      """,
      expands: #"""
        public enum Destination {
          case login(Login)
          case game(Games.Game<Int>)
          case alert(AlertState<Alert>)

          @CasePathable @dynamicMemberLookup
          public enum State: CaseDripperState {
            public typealias Features = Destination
            case login(Login.State)
            case game(Games.Game<Int>.State)
            case alert(AlertState<Alert>)
          }

          @CasePathable
          public enum Action: Sendable {
            case login(Login.Action)
            case game(Games.Game<Int>.Action)
            case alert(Alert)
          }

          @DripperBuilder<State, Action>
          public static var body: some Dripper<State, Action> {
            Scope(state: \.login, action: \.login) {
              Login()
            }
            Scope(state: \.game, action: \.game) {
              Games.Game<Int>()
            }
          }
        }

        extension Destination: CaseDripper {
        }
        """#, macro: "Dripper", conformances: ["CaseDripper"])
  }

  @Test func anEnumOfStatesAloneScopesNothing() {
    expect(
      """
      @Dripper enum Destination {
        case alert(AlertState<Alert>)
        case dialog(ConfirmationDialogState<Dialog>)
      }
      """,
      expands: #"""
        enum Destination {
          case alert(AlertState<Alert>)
          case dialog(ConfirmationDialogState<Dialog>)

          @CasePathable @dynamicMemberLookup
          enum State: CaseDripperState {
            typealias Features = Destination
            case alert(AlertState<Alert>)
            case dialog(ConfirmationDialogState<Dialog>)
          }

          @CasePathable
          enum Action: Sendable {
            case alert(Alert)
            case dialog(Dialog)
          }

          @DripperBuilder<State, Action>
          static var body: some Dripper<State, Action> {
            EmptyDripper<State, Action>()
          }
        }

        extension Destination: CaseDripper {
        }
        """#, macro: "Dripper", conformances: ["CaseDripper"])
  }

  @Test func aFeatureStructGetsCasePathsAndItsBuilder() {
    expect(
      """
      @Dripper struct Feature {
        struct State {}
        enum Action {
          case tap
        }
        var body: some DripperOf<Self> { EmptyDripper() }
      }
      """,
      expands: #"""
        struct Feature {
          struct State {}
          @CasePathable
          enum Action {
            case tap
          }
          @DripperBuilder<Self.State, Self.Action>
          var body: some DripperOf<Self> { EmptyDripper() }
        }

        extension Feature: Dripper {
        }
        """#, macro: "Dripper", conformances: ["Dripper"])
  }

  @Test func whatTheStructDeclaresIsNotRepeated() {
    expect(
      """
      @Dripper struct Feature: Dripper {
        @CasePathable enum State {
          case a
        }
        @CasePathable enum Action {
          case tap
        }
        @DripperBuilder<State, Action> var body: some DripperOf<Self> { EmptyDripper() }
      }
      """,
      expands: #"""
        struct Feature: Dripper {
          @CasePathable enum State {
            case a
          }
          @CasePathable enum Action {
            case tap
          }
          @DripperBuilder<State, Action> var body: some DripperOf<Self> { EmptyDripper() }
        }
        """#, macro: "Dripper", conformances: [])
  }

  @Test func aCaseThatIsNotOneFeatureIsRefused() {
    expect(
      """
      @Dripper enum Destination {
        case login(Login)
        case none
      }
      """,
      expands: #"""
        enum Destination {
          case login(Login)
          case none
        }
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "'@Dripper' enum case 'none' must hold one feature, unlabelled: case none(Feature)",
          line: 3,
          column: 8)
      ], macro: "Dripper", conformances: ["CaseDripper"])
  }

  @Test func aClassIsRefused() {
    expect(
      """
      @Dripper final class Feature {}
      """,
      expands: #"""
        final class Feature {}
        """#,
      diagnostics: [
        DiagnosticSpec(
          message: "'@Dripper' applies to a feature struct or to an enum of features", line: 1, column: 1)
      ], macro: "Dripper", conformances: ["Dripper"])
  }
}
