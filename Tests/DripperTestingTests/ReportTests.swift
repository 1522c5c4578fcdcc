import Dripper
import DripperTesting
import Testing

/// A feature that rejects bad input with a diagnostic of its own.
private struct Importer: Dripper {
  struct State: Equatable, Sendable { var rows: [String] = [] }
  enum Action: Equatable, Sendable { case importText(String) }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .importText(let text):
        guard text.contains(",") else {
          return .report(Diagnostic(.other, "ignored a file that is not CSV"))
        }
        state.rows = text.split(separator: ",").map(String.init)
        return .none
      }
    }
  }
}

@Suite struct ReportTests {
  @Test func aReportedDiagnosticReachesTheStationsObservers() async {
    let reported = Lock<[Diagnostic.Kind: [String]]>([:])
    let station = Station(
      initialState: Importer.State(),
      observers: [
        DripperObserver(diagnostic: { diagnostic in
          reported.withLock { $0[diagnostic.kind, default: []].append(diagnostic.message) }
        })
      ]
    ) {
      Importer()
    }
    await station.pour(.importText("no commas")).finish()
    await station.pour(.importText("a,b")).finish()
    #expect(reported.withLock { $0 } == [.other: ["ignored a file that is not CSV"]])
    #expect(await station.rows == ["a", "b"])
  }

  @Test func aReportedDiagnosticFailsATest() async {
    let station = TestStation(initialState: Importer.State()) { Importer() }
    await withExpectedFailure {
      await station.pour(.importText("no commas"))
    } matching: {
      mentions("ignored a file that is not CSV")($0)
    }
    await station.finish()
  }

  @MainActor
  @Test func anObservableStationMadeFromAStationStartsFromItsState() async {
    let station = Station(initialState: Importer.State()) { Importer() }
    station.pour(.importText("a,b"))
    let model = await ObservableStation(station: station)
    #expect(model.rows == ["a", "b"])
    await model.pour(.importText("c,d")).finish()
    await model.station.pour(.importText("e,f")).finish()
    #expect(await station.rows == ["e", "f"])
  }
}
