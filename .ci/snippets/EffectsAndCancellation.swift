// The feature EffectsAndCancellation.md's snippets are written in: its
// state, actions, clients and ids. Compiled with them by .ci/docs-snippets.sh.
import Dripper

struct Item: Equatable, Sendable {}
struct TimerID: Hashable, Sendable {}
struct UploadID: Hashable, Sendable {}
struct SensorID: Hashable, Sendable {}

struct Feature: Dripper {
  struct State: Equatable, Sendable { var isLoading = false }
  enum Action: Sendable {
    case refresh, loaded([Item]), failed(String)
    case startTimer, stopTimer, tick
    case upload
    case startListening, reading(Double)
  }

  struct API: Sendable { func items() async throws -> [Item] { [] } }
  struct Uploader: Sendable { func upload(_ file: String) async throws {} }
  struct Sensor: Sendable { var readings: AsyncStream<Double> { AsyncStream { $0.finish() } } }

  @Dependency(\.clock) var clock
  let api = API()
  let uploader = Uploader()
  let file = "report.pdf"
  let sensor = Sensor()

  var body: some DripperOf<Self> { EmptyDripper() }
}
