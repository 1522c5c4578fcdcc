import Dripper
import DripperTesting
import Testing

// TCA's ReusableOfflineDownloads case study (Examples/CaseStudies, HigherOrderReducers): a download
// button any row can embed. A tap starts a download that streams its progress; a tap while it runs
// asks, behind an alert, whether to stop it, and stopping cancels the stream in flight; a tap once
// downloaded asks whether to delete it. Written again as a Dripper feature; its four tests are
// ported assertion for assertion. Where the port differs: there is no Foundation, so the URL is a
// string and the response's `Data` is bytes; buttons carry no animation; TCA's `AnyHashable` id is
// an `Int`, as a cancellation id must be `Sendable` here.

/// What a download reports: its progress, then its response.
enum DownloadEvent: Equatable, Sendable {
  case response([UInt8])
  case updateProgress(Double)
}

struct DownloadClient: Sendable {
  var download: @Sendable (_ url: String) -> AsyncThrowingStream<DownloadEvent, any Error>
}

enum DownloadClientKey: DependencyKey {
  static let liveValue = DownloadClient(download: { _ in AsyncThrowingStream { $0.finish() } })
  static let testValue = DownloadClient(
    download: unimplemented("DownloadClient.download", placeholder: AsyncThrowingStream { $0.finish() }))
}

extension DependencyValues {
  var downloadClient: DownloadClient {
    get { self[DownloadClientKey.self] }
    set { self[DownloadClientKey.self] = newValue }
  }
}

/// The reusable download button.
struct DownloadComponent: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    let id: Int
    var mode: Mode
    let url: String
  }

  enum Mode: Equatable, Sendable {
    case downloaded
    case downloading(progress: Double)
    case notDownloaded
    case startingToDownload
  }

  enum Action: Sendable {
    case alert(PresentationAction<Alert>)
    case buttonTapped
    case downloadClient(Result<DownloadEvent, any Error>)

    enum Alert: Equatable, Sendable {
      case deleteButtonTapped
      case stopButtonTapped
    }
  }

  @Dependency(\.downloadClient) var downloadClient

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert(.presented(.deleteButtonTapped)):
        state.mode = .notDownloaded
        return .none

      case .alert(.presented(.stopButtonTapped)):
        state.mode = .notDownloaded
        return .cancel(id: state.id)

      case .alert:
        return .none

      case .buttonTapped:
        switch state.mode {
        case .downloaded:
          state.alert = .deleteDownload
          return .none
        case .downloading, .startingToDownload:
          state.alert = .stopDownload
          return .none
        case .notDownloaded:
          state.mode = .startingToDownload
          return .run { [url = state.url, downloadClient] pour in
            for try await event in downloadClient.download(url) {
              await pour(.downloadClient(.success(event)))
            }
          } catch: { error, pour in
            await pour(.downloadClient(.failure(error)))
          }
          .cancellable(id: state.id)
        }

      case .downloadClient(.success(.response)):
        state.mode = .downloaded
        state.alert = nil
        return .none

      case .downloadClient(.success(.updateProgress(let progress))):
        state.mode = .downloading(progress: progress)
        return .none

      case .downloadClient(.failure):
        state.mode = .notDownloaded
        state.alert = nil
        return .none
      }
    }
    .ifLet(\.$alert, action: .alert)
  }
}

extension AlertState where Action == DownloadComponent.Action.Alert {
  static let deleteDownload = Self {
    TextState("Do you want to delete this map from your offline storage?")
  } actions: {
    ButtonState(role: .destructive, action: .deleteButtonTapped) { TextState("Delete") }
    ButtonState(role: .cancel) { TextState("Nevermind") }
  }

  static let stopDownload = Self {
    TextState("Do you want to stop downloading this map?")
  } actions: {
    ButtonState(role: .destructive, action: .stopButtonTapped) { TextState("Stop") }
    ButtonState(role: .cancel) { TextState("Nevermind") }
  }
}

extension CasePath<DownloadComponent.Action, PresentationAction<DownloadComponent.Action.Alert>> {
  static var alert: Self { Self(DownloadComponent.Action.alert) }
}

/// TCA's `\.downloadClient.success.updateProgress` and `\.downloadClient.success.response`.
extension CasePath<DownloadComponent.Action, Double> {
  static var updateProgress: Self {
    Self(
      { .downloadClient(.success(.updateProgress($0))) },
      extract: {
        if case .downloadClient(.success(.updateProgress(let progress))) = $0 { progress } else { nil }
      })
  }
}

extension CasePath<DownloadComponent.Action, [UInt8]> {
  static var response: Self {
    Self(
      { .downloadClient(.success(.response($0))) },
      extract: { if case .downloadClient(.success(.response(let bytes))) = $0 { bytes } else { nil } })
  }
}

@Suite struct OfflineDownloadsTests {
  private func component(
    _ mode: DownloadComponent.Mode,
    streaming download: AsyncThrowingStream<DownloadEvent, any Error>
  ) -> TestStation<DownloadComponent.State, DownloadComponent.Action> {
    TestStation(
      initialState: DownloadComponent.State(id: 1, mode: mode, url: "https://www.pointfree.co")
    ) {
      DownloadComponent()
    } withDependencies: {
      $0.downloadClient.download = { _ in download }
    }
  }

  /// The first steps of `downloadFlow` and `cancelDownloadFlow`: a tap starts the download, and
  /// its first progress arrives.
  private func startDownloading(
    _ store: TestStation<DownloadComponent.State, DownloadComponent.Action>,
    _ download: AsyncThrowingStream<DownloadEvent, any Error>.Continuation
  ) async {
    await store.pour(.buttonTapped) {
      $0.mode = .startingToDownload
    }

    download.yield(.updateProgress(0.2))
    await store.receive(.updateProgress) {
      $0.mode = .downloading(progress: 0.2)
    }
  }

  @Test func downloadFlow() async {
    let download = AsyncThrowingStream.makeStream(of: DownloadEvent.self)
    let store = component(.notDownloaded, streaming: download.stream)

    await startDownloading(store, download.continuation)

    download.continuation.yield(.response([]))
    download.continuation.finish()
    await store.receive(.response) {
      $0.mode = .downloaded
    }
  }

  /// Stopping cancels the download while its stream is still open: the test ends with nothing
  /// running, and no progress the stream yields afterwards reaches the state.
  @Test func cancelDownloadFlow() async {
    let download = AsyncThrowingStream.makeStream(of: DownloadEvent.self)
    let store = component(.notDownloaded, streaming: download.stream)

    await startDownloading(store, download.continuation)

    await store.pour(.buttonTapped) {
      $0.alert = .stopDownload
    }

    await store.pour(.alert(.presented(.stopButtonTapped))) {
      $0.alert = nil
      $0.mode = .notDownloaded
    }

    download.continuation.yield(.updateProgress(0.5))
    await store.finish()
  }

  /// The download's answer arrives while the alert asks whether to stop it: the answer wins, and
  /// the alert goes.
  @Test func downloadFinishesWhileTryingToCancel() async {
    let download = AsyncThrowingStream.makeStream(of: DownloadEvent.self)
    let store = component(.notDownloaded, streaming: download.stream)

    let task = await store.pour(.buttonTapped) {
      $0.mode = .startingToDownload
    }

    await store.pour(.buttonTapped) {
      $0.alert = .stopDownload
    }

    download.continuation.yield(.response([]))
    download.continuation.finish()
    await store.receive(.response) {
      $0.alert = nil
      $0.mode = .downloaded
    }

    await task.finish()
  }

  @Test func deleteDownloadFlow() async {
    let download = AsyncThrowingStream.makeStream(of: DownloadEvent.self)
    let store = component(.downloaded, streaming: download.stream)

    await store.pour(.buttonTapped) {
      $0.alert = .deleteDownload
    }

    await store.pour(.alert(.presented(.deleteButtonTapped))) {
      $0.alert = nil
      $0.mode = .notDownloaded
    }
  }
}
