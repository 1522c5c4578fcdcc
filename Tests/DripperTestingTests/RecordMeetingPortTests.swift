import Dripper
import DripperTesting
import Foundation
import Testing

// TCA's SyncUps example (Examples/SyncUps): the RecordMeeting screen, written again as a Dripper
// feature, and its seven tests ported assertion for assertion. One effect runs the speech task and
// the timer as children of a task group; the screen dismisses itself from an effect when time is
// up or the meeting ends. Where TCA's tests wait for a `DismissEffect` override's expectation,
// these ask `isDismissed` (issue 40: the root feature may dismiss itself, and no failure is
// recorded). The timer is TCA's `clock.timer(interval:)`.

/// A sync-up and its recorded meetings, as the example's models.
struct SyncUp: Equatable, Identifiable, Sendable {
  struct Attendee: Equatable, Identifiable, Sendable {
    let id: UUID
    var name = ""
  }
  struct Meeting: Equatable, Identifiable, Sendable {
    let id: UUID
    let date: Date
    var transcript: String
  }

  let id: UUID
  var attendees: [Attendee] = []
  var duration: Duration = .seconds(5 * 60)
  var meetings: [Meeting] = []
  var title = ""

  var durationPerAttendee: Duration { duration / attendees.count }

  static let mock = SyncUp(
    id: UUID(100),
    attendees: ["Blob", "Blob Jr", "Blob Sr", "Blob Esq", "Blob III", "Blob I"].enumerated().map {
      Attendee(id: UUID(200 + $0.offset), name: $0.element)
    },
    duration: .seconds(60),
    title: "Design")

  /// Three attendees with two seconds each: the tests' sync-up.
  static func short() -> SyncUp {
    SyncUp(
      id: UUID(101),
      attendees: (0..<3).map { Attendee(id: UUID(300 + $0)) },
      duration: .seconds(6))
  }
}

/// The speech recognizer, as the example's `SpeechClient`.
struct SpeechClient: Sendable {
  enum Authorization: Equatable, Sendable { case notDetermined, denied, restricted, authorized }
  struct Result: Equatable, Sendable {
    var formattedString: String
    var isFinal: Bool
  }

  var authorizationStatus: @Sendable () -> Authorization
  var requestAuthorization: @Sendable () async -> Authorization
  var startTask: @Sendable () async -> AsyncThrowingStream<Result, any Error>
}

enum SpeechClientKey: DependencyKey {
  static let liveValue = SpeechClient(
    authorizationStatus: { .denied }, requestAuthorization: { .denied },
    startTask: { AsyncThrowingStream { $0.finish() } })
  static let testValue = SpeechClient(
    authorizationStatus: unimplemented("SpeechClient.authorizationStatus", placeholder: .denied),
    requestAuthorization: unimplemented("SpeechClient.requestAuthorization", placeholder: .denied),
    startTask: unimplemented("SpeechClient.startTask", placeholder: AsyncThrowingStream { $0.finish() }))
}

extension DependencyValues {
  var speechClient: SpeechClient {
    get { self[SpeechClientKey.self] }
    set { self[SpeechClientKey.self] = newValue }
  }
}

struct RecordMeeting: Dripper {
  struct State: Equatable, Sendable {
    @PresentationState var alert: AlertState<Action.Alert>?
    var secondsElapsed = 0
    var speakerIndex = 0
    @Shared var syncUp: SyncUp
    var transcript = ""

    var durationRemaining: Duration { syncUp.duration - .seconds(secondsElapsed) }
  }

  enum Action: Sendable {
    case alert(PresentationAction<Alert>)
    case endMeetingButtonTapped
    case nextButtonTapped
    case onTask
    case timerTick
    case speechFailure
    case speechResult(SpeechClient.Result)

    enum Alert: Equatable, Sendable {
      case confirmDiscard
      case confirmSave
    }
  }

  @Dependency(\.clock) var clock
  @Dependency(\.date) var date
  @Dependency(\.dismiss) var dismiss
  @Dependency(\.speechClient) var speechClient
  @Dependency(\.uuid) var uuid

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .alert(.presented(.confirmDiscard)):
        return .run { _ in await dismiss() }

      case .alert(.presented(.confirmSave)):
        insertMeeting(into: state)
        return .run { _ in await dismiss() }

      case .alert:
        return .none

      case .endMeetingButtonTapped:
        state.alert = .endMeeting(isDiscardable: true)
        return .none

      case .nextButtonTapped:
        guard state.speakerIndex < state.syncUp.attendees.count - 1 else {
          state.alert = .endMeeting(isDiscardable: false)
          return .none
        }
        state.speakerIndex += 1
        state.secondsElapsed = state.speakerIndex * Int(state.syncUp.durationPerAttendee.components.seconds)
        return .none

      case .onTask:
        return .run { [speechClient, clock] pour in
          let authorization =
            speechClient.authorizationStatus() == .notDetermined
            ? await speechClient.requestAuthorization()
            : speechClient.authorizationStatus()

          await withTaskGroup(of: Void.self) { group in
            if authorization == .authorized {
              group.addTask {
                do {
                  for try await result in await speechClient.startTask() {
                    await pour(.speechResult(result))
                  }
                } catch {
                  await pour(.speechFailure)
                }
              }
            }
            group.addTask {
              for await _ in clock.timer(interval: .seconds(1)) {
                await pour(.timerTick)
              }
            }
          }
        }

      case .timerTick:
        guard state.alert == nil else { return .none }
        state.secondsElapsed += 1
        let secondsPerAttendee = Int(state.syncUp.durationPerAttendee.components.seconds)
        if state.secondsElapsed.isMultiple(of: secondsPerAttendee) {
          if state.secondsElapsed == state.syncUp.duration.components.seconds {
            insertMeeting(into: state)
            return .run { _ in await dismiss() }
          }
          state.speakerIndex += 1
        }
        return .none

      case .speechFailure:
        if !state.transcript.isEmpty {
          state.transcript += " ❌"
        }
        state.alert = .speechRecognizerFailed
        return .none

      case .speechResult(let result):
        state.transcript = result.formattedString
        return .none
      }
    }
    .ifLet(\.$alert, action: .alert)
  }

  private func insertMeeting(into state: State) {
    let meeting = SyncUp.Meeting(id: uuid(), date: date.now, transcript: state.transcript)
    state.$syncUp.withLock { $0.meetings.insert(meeting, at: 0) }
  }
}

extension AlertState where Action == RecordMeeting.Action.Alert {
  static func endMeeting(isDiscardable: Bool) -> Self {
    Self {
      TextState("End meeting?")
    } actions: {
      ButtonState(action: .confirmSave) { TextState("Save and end") }
      if isDiscardable {
        ButtonState(role: .destructive, action: .confirmDiscard) { TextState("Discard") }
      }
      ButtonState(role: .cancel) { TextState("Resume") }
    } message: {
      TextState("You are ending the meeting early. What would you like to do?")
    }
  }

  static let speechRecognizerFailed = Self {
    TextState("Speech recognition failure")
  } actions: {
    ButtonState(role: .cancel) { TextState("Continue meeting") }
    ButtonState(role: .destructive, action: .confirmDiscard) { TextState("Discard meeting") }
  } message: {
    TextState(
      "The speech recognizer has failed for some reason and so your meeting will no longer be recorded. "
        + "What do you want to do?")
  }
}

extension CasePath<RecordMeeting.Action, PresentationAction<RecordMeeting.Action.Alert>> {
  static var alert: Self { Self(RecordMeeting.Action.alert) }
}

/// TCA's `\.timerTick`, `\.speechResult` and `\.speechFailure`.
extension CasePath<RecordMeeting.Action, Void> {
  static var timerTick: Self {
    Self({ .timerTick }, extract: { if case .timerTick = $0 { () } else { nil } })
  }
  static var speechFailure: Self {
    Self({ .speechFailure }, extract: { if case .speechFailure = $0 { () } else { nil } })
  }
}
extension CasePath<RecordMeeting.Action, SpeechClient.Result> {
  static var speechResult: Self { Self(RecordMeeting.Action.speechResult) }
}

/// TCA's `Date(timeIntervalSince1970: 1_234_567_890)`.
private let now = Date(timeIntervalSince1970: 1_234_567_890)

/// A recording of `syncUp` on `clock`, with the speech recognizer `speech` gives, or denied.
private func recording(
  _ syncUp: SyncUp, on clock: TestClock,
  speech: (@Sendable () async -> AsyncThrowingStream<SpeechClient.Result, any Error>)? = nil
) -> TestStation<RecordMeeting.State, RecordMeeting.Action> {
  TestStation(initialState: RecordMeeting.State(syncUp: Shared(value: syncUp))) {
    RecordMeeting()
  } withDependencies: {
    $0.clock = clock
    $0.date = .constant(now)
    $0.uuid = .incrementing
    if let speech {
      $0.speechClient.authorizationStatus = { .authorized }
      $0.speechClient.startTask = speech
    } else {
      $0.speechClient.authorizationStatus = { .denied }
    }
  }
}

/// The first id `.incrementing` makes: TCA's `UUID(0)`.
private let firstID = UUID(0)

/// What saving the meeting does to the state: TCA's `$0.syncUp.meetings.insert(…, at: 0)`.
private func saveMeeting(_ state: inout RecordMeeting.State) {
  state.$syncUp.withLock {
    $0.meetings.insert(SyncUp.Meeting(id: firstID, date: now, transcript: ""), at: 0)
  }
}

@Suite struct RecordMeetingTests {
  @Test func timer() async {
    let clock = TestClock()
    let store = recording(.short(), on: clock)

    let onTask = await store.pour(.onTask)

    let steps: [(speakerIndex: Int, remaining: Int)] = [(0, 5), (1, 4), (1, 3), (2, 2), (2, 1)]
    for (second, step) in steps.enumerated() {
      await clock.advance(by: .seconds(1))
      await store.receive(.timerTick) {
        $0.speakerIndex = step.speakerIndex
        $0.secondsElapsed = second + 1
        #expect($0.durationRemaining == .seconds(step.remaining))
      }
    }

    await clock.advance(by: .seconds(1))
    await store.receive(.timerTick) {
      $0.speakerIndex = 2
      $0.secondsElapsed = 6
      saveMeeting(&$0)
      #expect($0.durationRemaining == .seconds(0))
    }

    #expect(store.isDismissed)
    await onTask.cancel()
  }

  @Test func recordTranscript() async {
    let clock = TestClock()
    let store = recording(.short(), on: clock) {
      AsyncThrowingStream { continuation in
        continuation.yield(SpeechClient.Result(formattedString: "I completed the project", isFinal: true))
        continuation.finish()
      }
    }

    let onTask = await store.pour(.onTask)

    await store.receive(.speechResult) {
      $0.transcript = "I completed the project"
    }

    let shown = await skippedAssertionsShown {
      store.exhaustivity = .off(showSkippedAssertions: true)
      await clock.advance(by: .seconds(6))
      for _ in 1...6 { await store.receive(.timerTick) }
      store.exhaustivity = .on
    }
    #expect(shown.count == 6 && shown.allSatisfy { $0.hasPrefix("Skipped changes not asserted after") })

    #expect(store.state.syncUp.meetings[0].transcript == "I completed the project")
    #expect(store.isDismissed)
    await onTask.cancel()
  }

  @Test func endMeetingSave() async {
    let clock = TestClock()
    let store = recording(.mock, on: clock)

    let onTask = await store.pour(.onTask)

    await store.pour(.endMeetingButtonTapped) {
      $0.alert = .endMeeting(isDiscardable: true)
    }

    await clock.advance(by: .seconds(3))
    await store.receive(.timerTick)
    await store.receive(.timerTick)
    await store.receive(.timerTick)

    await store.pour(.alert(.presented(.confirmSave))) {
      $0.alert = nil
      saveMeeting(&$0)
    }

    #expect(store.isDismissed)
    await onTask.cancel()
  }

  @Test func endMeetingDiscard() async {
    let clock = TestClock()
    let store = recording(.mock, on: clock)

    let task = await store.pour(.onTask)

    await store.pour(.endMeetingButtonTapped) {
      $0.alert = .endMeeting(isDiscardable: true)
    }
    await store.pour(.alert(.presented(.confirmDiscard))) {
      $0.alert = nil
    }

    #expect(store.isDismissed)
    await task.cancel()
  }

  @Test func nextSpeaker() async {
    let clock = TestClock()
    let store = recording(.short(), on: clock)

    let onTask = await store.pour(.onTask)

    await store.pour(.nextButtonTapped) {
      $0.speakerIndex = 1
      $0.secondsElapsed = 2
    }
    await store.pour(.nextButtonTapped) {
      $0.speakerIndex = 2
      $0.secondsElapsed = 4
    }
    await store.pour(.nextButtonTapped) {
      $0.alert = .endMeeting(isDiscardable: false)
    }
    await store.pour(.alert(.presented(.confirmSave))) {
      $0.alert = nil
      saveMeeting(&$0)
    }

    #expect(store.isDismissed)
    await onTask.cancel()
  }

  @Test func speechRecognitionFailureContinue() async {
    struct SpeechRecognitionFailure: Error {}
    let clock = TestClock()
    let store = recording(.short(), on: clock) {
      AsyncThrowingStream {
        $0.yield(SpeechClient.Result(formattedString: "I completed the project", isFinal: true))
        $0.finish(throwing: SpeechRecognitionFailure())
      }
    }

    let onTask = await store.pour(.onTask)

    await store.receive(.speechResult) {
      $0.transcript = "I completed the project"
    }
    await store.receive(.speechFailure) {
      $0.alert = .speechRecognizerFailed
      $0.transcript = "I completed the project ❌"
    }
    await store.pour(.alert(.dismiss)) {
      $0.alert = nil
    }

    await clock.advance(by: .seconds(6))

    let shown = await skippedAssertionsShown {
      store.exhaustivity = .off(showSkippedAssertions: true)
      for _ in 1...6 { await store.receive(.timerTick) }
      store.exhaustivity = .on
    }
    #expect(shown.count == 6)

    #expect(store.isDismissed)
    await onTask.cancel()
  }

  @Test func speechRecognitionFailureDiscard() async {
    struct SpeechRecognitionFailure: Error {}
    let clock = TestClock()
    let store = recording(.mock, on: clock) {
      AsyncThrowingStream { $0.finish(throwing: SpeechRecognitionFailure()) }
    }

    let onTask = await store.pour(.onTask)

    await store.receive(.speechFailure) {
      $0.alert = .speechRecognizerFailed
    }
    await store.pour(.alert(.presented(.confirmDiscard))) {
      $0.alert = nil
    }

    #expect(store.isDismissed)
    await onTask.cancel()
  }
}
