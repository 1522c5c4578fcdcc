import DripperTesting
import Testing

@testable import Dripper

@Suite struct EnumStateTests {
  @Test func theChildRunsOnlyInItsCase() async {
    let sink = DiagnosticsSink()
    let station = Station(initialState: ModeFeature.State.off) {
      ModeFeature()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.child(.increase)).finish()
    #expect(sink.all.map(\.kind) == [.missingChild])
    #expect(
      sink.all.map(\.message) == [
        "ignored .child(.increase): it is for a child in a case of State that "
          + "the state is not in (an effect may have outlived its case)"
      ])
    station.pour(.turnOn)
    await station.pour(.child(.increase)).finish()
    #expect(await station.state == .on(Child.State(count: 1)))
  }

  @Test func leavingTheCaseCancelsTheChildsEffects() async {
    let station = Station(initialState: ModeFeature.State.off) { ModeFeature() }
    station.pour(.turnOn)
    let probe = Probe()
    let task = station.pour(.child(.increaseAfter(probe)))
    await probe.started.wait()
    await station.pour(.turnOff).finish()
    await probe.cancelled.wait()
    probe.release.open()
    await task.finish()
    #expect(await station.state == .off)
  }

  @Test func aScopeOverACaseWorksLikeIfCaseLet() async {
    struct Switch: Dripper {
      var body: some Dripper<ModeFeature.State, ModeFeature.Action> {
        Scope(state: .on, action: .child) { Child() }
        Drip { state, action in
          if case .turnOn = action { state = .on(Child.State()) }
          return .none
        }
      }
    }
    let sink = DiagnosticsSink()
    let station = Station(initialState: ModeFeature.State.off) {
      Switch()
    } withDependencies: {
      sink.install(&$0)
    }
    await station.pour(.child(.increase)).finish()
    station.pour(.turnOn)
    await station.pour(.child(.increase)).finish()
    #expect(await station.state == .on(Child.State(count: 1)))
    #expect(sink.all.count == 1)
  }
}
