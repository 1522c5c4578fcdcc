import DripperTesting
import Foundation
import Testing

/// A checkout that times out unless it is paid: a hosted feature, with a reminder and replies.
private struct Checkout: Dripper {
  struct State: Equatable, Sendable {
    var status = Status.open
    enum Status: Equatable, Sendable { case open, awaitingPayment, paid, cancelled }
  }

  enum Action: Equatable, Sendable, ReplyingAction {
    typealias Reply = String
    case checkedOut(at: Date)
    case paid
    case paymentTimedOut
  }

  var body: some DripperOf<Self> {
    Drip { state, action in
      switch action {
      case .checkedOut(let date):
        state.status = .awaitingPayment
        return .merge(
          .remind(.paymentTimedOut, at: date.addingTimeInterval(15 * 60), id: "payment"),
          .reply("awaiting payment"))
      case .paid:
        guard state.status == .awaitingPayment else { return .reply("nothing to pay") }
        state.status = .paid
        return .merge(.cancelReminder(id: "payment"), .reply("paid"))
      case .paymentTimedOut:
        state.status = .cancelled
        return .none
      }
    }
  }
}

/// Issue 57: a hosted feature is tested like any other. Under a `TestStation` a reminder is an
/// effect on the test's clock whose action the test receives at its deadline, and a reply is
/// something the test reads.
@Suite struct HostedFeatureTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func aReminderIsReceivedAtItsDeadline() async {
    let clock = TestClock()
    let station = TestStation(initialState: Checkout.State()) {
      Checkout()
    } withDependencies: { [start] in
      $0.clock = clock
      $0.date = .constant(start)
    }
    await station.pour(.checkedOut(at: start)) { $0.status = .awaitingPayment }
    await clock.advance(by: .seconds(15 * 60 - 1))
    await clock.advance(by: .seconds(1))
    await station.receive(.paymentTimedOut) { $0.status = .cancelled }
    #expect(station.replies == ["awaiting payment"])
    await station.finish()
  }

  @Test func aCancelledReminderIsNotReceived() async {
    let clock = TestClock()
    let station = TestStation(initialState: Checkout.State()) {
      Checkout()
    } withDependencies: { [start] in
      $0.clock = clock
      $0.date = .constant(start)
    }
    await station.pour(.checkedOut(at: start)) { $0.status = .awaitingPayment }
    await station.pour(.paid) { $0.status = .paid }
    await station.pour(.paid)
    await clock.advance(by: .seconds(3_600))
    #expect(station.replies == ["awaiting payment", "paid", "nothing to pay"])
    await station.finish()
  }

  /// A reminder set again replaces the first: only the second is received.
  @Test func aReminderSetAgainReplacesTheFirst() async {
    let clock = TestClock()
    let station = TestStation(initialState: Checkout.State()) {
      Checkout()
    } withDependencies: { [start] in
      $0.clock = clock
      $0.date = .constant(start)
    }
    await station.pour(.checkedOut(at: start)) { $0.status = .awaitingPayment }
    await station.pour(.checkedOut(at: start.addingTimeInterval(600)))
    await clock.advance(by: .seconds(15 * 60))
    await clock.advance(by: .seconds(600))
    await station.receive(.paymentTimedOut) { $0.status = .cancelled }
    await station.finish()
  }

  /// A reminder still waiting when the test ends is reported, as any effect still running.
  @Test func aReminderLeftWaitingFailsTheTest() async {
    await withExpectedFailure {
      let clock = TestClock()
      let station = TestStation(initialState: Checkout.State()) {
        Checkout()
      } withDependencies: { [start] in
        $0.clock = clock
        $0.date = .constant(start)
      }
      await station.pour(.checkedOut(at: start)) { $0.status = .awaitingPayment }
      await station.finish(timeout: .milliseconds(50))
    } matching: { failure in
      failure.comments.map(\.rawValue).joined().contains("a reminder (Effect.remind(_:at:id:))")
    }
  }
}
