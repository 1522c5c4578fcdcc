import DripperMacros
import DripperTesting
import Testing

// TCA's SpeechRecognition example (Examples/SpeechRecognition): a record button that asks for
// authorization, then live-transcribes what a speech client streams, with an alert for each way it
// fails. Written again as a Dripper feature on `@Dripper`, its five tests ported assertion for
// assertion. The Speech framework is Apple's: its authorization status and request are stand-ins
// here, and the example's own value types (SpeechRecognitionResult, Transcription) are kept as it
// declares them.

// MARK: - The feature (TCA: SpeechRecognition.swift without its view, Client.swift, Models.swift)

/// `SFSpeechRecognizerAuthorizationStatus`'s cases.
enum SpeechAuthorizationStatus: Equatable, Sendable { case notDetermined, denied, restricted, authorized }

/// `SFSpeechAudioBufferRecognitionRequest`, which the client is handed.
struct SpeechRequest: Sendable {}

struct SpeechRecognitionResult: Equatable, Sendable {
  var bestTranscription: Transcription
  var isFinal: Bool
  var transcriptions: [Transcription]
}

struct Transcription: Equatable, Sendable {
  var formattedString: String
  var segments: [TranscriptionSegment]
}

struct TranscriptionSegment: Equatable, Sendable {
  var alternativeSubstrings: [String]
  var confidence: Float
  var duration: Double
  var substring: String
  var timestamp: Double
}

@DependencyClient
struct SpeechRecognitionClient: Sendable {
  var finishTask: @Sendable () async -> Void
  var requestAuthorization: @Sendable () async -> SpeechAuthorizationStatus = { .notDetermined }
  var startTask:
    @Sendable (_ request: SpeechRequest) async -> AsyncThrowingStream<SpeechRecognitionResult, any Error> = {
      _ in .finished()
    }

  enum Failure: Error, Equatable {
    case taskError
    case couldntStartAudioEngine
    case couldntConfigureAudioSession
  }
}

extension SpeechRecognitionClient: TestDependencyKey {
  static let testValue = SpeechRecognitionClient()
}

extension DependencyValues {
  var speechRecognitionClient: SpeechRecognitionClient {
    get { self[SpeechRecognitionClient.self] }
    set { self[SpeechRecognitionClient.self] = newValue }
  }
}

@Dripper
struct SpeechRecognition {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var isRecording = false
    var transcribedText = ""
  }

  enum Action: Sendable {
    case alert(PresentationAction<Alert>)
    case recordButtonTapped
    case speech(Result<String, any Error>)
    case speechRecognizerAuthorizationStatusResponse(SpeechAuthorizationStatus)

    enum Alert: Equatable, Sendable {}
  }

  @Dependency(\.speechRecognitionClient) var speechRecognitionClient

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert:
        return .none

      case .recordButtonTapped:
        state.isRecording.toggle()

        guard state.isRecording
        else {
          return .run { _ in
            await self.speechRecognitionClient.finishTask()
          }
        }

        return .run { pour in
          let status = await self.speechRecognitionClient.requestAuthorization()
          await pour(.speechRecognizerAuthorizationStatusResponse(status))

          guard status == .authorized
          else { return }

          for try await result in await self.speechRecognitionClient.startTask(SpeechRequest()) {
            await pour(.speech(.success(result.bestTranscription.formattedString)))
          }
        } catch: { error, pour in
          await pour(.speech(.failure(error)))
        }

      case .speech(.failure(SpeechRecognitionClient.Failure.couldntConfigureAudioSession)),
        .speech(.failure(SpeechRecognitionClient.Failure.couldntStartAudioEngine)):
        state.alert = AlertState { TextState("Problem with audio device. Please try again.") }
        return .none

      case .speech(.failure):
        state.alert = AlertState {
          TextState("An error occurred while transcribing. Please try again.")
        }
        return .none

      case .speech(.success(let transcribedText)):
        state.transcribedText = transcribedText
        return .none

      case .speechRecognizerAuthorizationStatusResponse(let status):
        state.isRecording = status == .authorized

        switch status {
        case .authorized:
          return .none

        case .denied:
          state.alert = AlertState {
            TextState(
              """
              You denied access to speech recognition. This app needs access to transcribe your \
              speech.
              """
            )
          }
          return .none

        case .notDetermined:
          return .none

        case .restricted:
          state.alert = AlertState { TextState("Your device does not allow speech recognition.") }
          return .none
        }
      }
    }
    .ifLet(\.$alert, action: \.alert)
  }
}

// MARK: - The tests (TCA: SpeechRecognitionTests.swift)

@MainActor
@Suite struct SpeechRecognitionPortTests {
  @Test
  func denyAuthorization() async {
    let store = TestStation(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechRecognitionClient.requestAuthorization = { .denied }
    }

    await store.pour(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.speechRecognizerAuthorizationStatusResponse) {
      $0.alert = AlertState {
        TextState(
          """
          You denied access to speech recognition. This app needs access to transcribe your speech.
          """
        )
      }
      $0.isRecording = false
    }
  }

  @Test
  func restrictedAuthorization() async {
    let store = TestStation(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechRecognitionClient.requestAuthorization = { .restricted }
    }

    await store.pour(.recordButtonTapped) {
      $0.isRecording = true
    }
    await store.receive(\.speechRecognizerAuthorizationStatusResponse) {
      $0.alert = AlertState { TextState("Your device does not allow speech recognition.") }
      $0.isRecording = false
    }
  }

  @Test
  func allowAndRecord() async {
    let recognitionTask = AsyncThrowingStream.makeStream(of: SpeechRecognitionResult.self)
    let store = TestStation(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechRecognitionClient.finishTask = { recognitionTask.continuation.finish() }
      $0.speechRecognitionClient.startTask = { @Sendable _ in recognitionTask.stream }
      $0.speechRecognitionClient.requestAuthorization = { .authorized }
    }

    let firstResult = SpeechRecognitionResult(
      bestTranscription: Transcription(
        formattedString: "Hello",
        segments: []
      ),
      isFinal: false,
      transcriptions: []
    )
    var secondResult = firstResult
    secondResult.bestTranscription.formattedString = "Hello world"

    await store.pour(.recordButtonTapped) {
      $0.isRecording = true
    }

    await store.receive(\.speechRecognizerAuthorizationStatusResponse)

    recognitionTask.continuation.yield(firstResult)
    await store.receive(\.speech.success) {
      $0.transcribedText = "Hello"
    }

    recognitionTask.continuation.yield(secondResult)
    await store.receive(\.speech.success) {
      $0.transcribedText = "Hello world"
    }

    await store.pour(.recordButtonTapped) {
      $0.isRecording = false
    }

    await store.finish()
  }

  @Test
  func audioSessionFailure() async {
    let recognitionTask = AsyncThrowingStream.makeStream(of: SpeechRecognitionResult.self)
    let store = TestStation(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechRecognitionClient.startTask = { @Sendable _ in recognitionTask.stream }
      $0.speechRecognitionClient.requestAuthorization = { .authorized }
    }

    await store.pour(.recordButtonTapped) {
      $0.isRecording = true
    }

    await store.receive(\.speechRecognizerAuthorizationStatusResponse)

    recognitionTask.continuation.finish(
      throwing: SpeechRecognitionClient.Failure.couldntConfigureAudioSession)
    await store.receive(\.speech.failure) {
      $0.alert = AlertState { TextState("Problem with audio device. Please try again.") }
    }
  }

  @Test
  func audioEngineFailure() async {
    let recognitionTask = AsyncThrowingStream.makeStream(of: SpeechRecognitionResult.self)
    let store = TestStation(initialState: SpeechRecognition.State()) {
      SpeechRecognition()
    } withDependencies: {
      $0.speechRecognitionClient.startTask = { @Sendable _ in recognitionTask.stream }
      $0.speechRecognitionClient.requestAuthorization = { .authorized }
    }

    await store.pour(.recordButtonTapped) {
      $0.isRecording = true
    }

    await store.receive(\.speechRecognizerAuthorizationStatusResponse)

    recognitionTask.continuation.finish(throwing: SpeechRecognitionClient.Failure.couldntStartAudioEngine)
    await store.receive(\.speech.failure) {
      $0.alert = AlertState { TextState("Problem with audio device. Please try again.") }
    }
  }
}
