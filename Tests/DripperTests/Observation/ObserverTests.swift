import Observation
import Synchronization
import Testing

@testable import Dripper

@Suite struct ObserverTests {
  @Test func observersAreToldOfEveryKindOfEvent() async {
    struct Boom: Error {}
    let log = Recorder<String>()
    let observer = DripperObserver<Runner.State, Runner.Action>(
      willReduce: { action, state in
        if case .record(let entry) = action { log.append("will \(entry) at \(state.log.count)") }
      },
      didReduce: { transition in
        if case .record = transition.action {
          log.append("did \(transition.old.log) -> \(transition.new.log)")
        }
      },
      effect: { event in
        switch event.kind {
        case .started: log.append("effect started")
        case .finished: log.append("effect finished")
        case .cancelled: log.append("effect cancelled")
        case .failed(let error): log.append("effect failed \(error)")
        }
      },
      diagnostic: { log.append("diagnostic \($0.kind)") },
      end: { log.append("end") })
    var station: StationOf<Runner>? = Station(initialState: Runner.State(), observers: [observer]) {
      Runner()
    }
    await station!.pour(.record("a")).finish()
    await station!.pour(.run(.run { pour in await pour(.record("b")) })).finish()
    await station!.pour(.run(.run { _ in throw Boom() })).finish()
    let task = station!.pour(.run(.run { _ in try await Task.sleep(for: .seconds(3_600)) }))
    task.cancel()
    await task.finish()
    station = nil
    let all = log.all
    #expect(all.prefix(2) == ["will a at 0", "did [] -> [\"a\"]"])
    #expect(all.contains("will b at 1"))
    #expect(all.contains("effect failed Boom()"))
    #expect(all.contains("diagnostic uncaughtError"))
    #expect(all.filter { $0 == "effect started" }.count >= 2)
    #expect(all.contains("effect finished"))
    #expect(all.last == "end")
  }

  @Test func aSubtreeObserverSeesItsSubtreeOnly() async {
    let seen = Recorder<String>()
    struct Feature: Dripper {
      let seen: Recorder<String>
      var body: some DripperOf<Parent> {
        Scope(state: \.child, action: .child) {
          Child().observe(DripperObserver(willReduce: { action, _ in seen.append("\(action)") }))
        }
      }
    }
    let station = Station(initialState: Parent.State()) { Feature(seen: seen) }
    station.pour(.showDetail)
    await station.pour(.child(.increase)).finish()
    #expect(seen.all == ["increase"])
  }
}
