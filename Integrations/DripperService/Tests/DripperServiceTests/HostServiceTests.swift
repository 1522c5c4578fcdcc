import Dripper
import DripperService
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
import Tracing

/// A host of purses with telemetry into in-memory handlers.
struct Harness {
  let logs = InMemoryLogHandler()
  let metrics = TestMetrics()
  let tracer = InMemoryTracer()
  let spans = LockIsolated<[String]>([])
  let telemetry: HostTelemetry<String>
  let service: HostService<String, Purse>

  init(
    folder: String? = nil, lifetime: HostLifetime = HostLifetime(), clock: TestClock? = nil
  ) throws {
    var handler = logs
    handler.logLevel = .trace
    telemetry = HostTelemetry(
      name: "purses", logger: Logger(label: "test") { _ in handler }, metrics: metrics, tracer: tracer)
    let spans = spans
    let host = try StationHost<String, Purse>(
      storage: folder.map { .folder($0, codec: .json) } ?? .inMemory, lifetime: lifetime,
      observer: telemetry.observer
    ) { _ in
      Purse.State()
    } dripper: { _ in
      Purse(spans: spans)
    }
    service = HostService(host, telemetry: telemetry)
  }

  var host: StationHost<String, Purse> { service.host }

  func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
    metrics.counterTotal(label: label, dimensions: [("host", "purses")] + dimensions)
  }
}

@Suite struct HostServiceTests {
  /// A graceful shutdown (SIGTERM through a ServiceGroup) closes the host: new pours are refused
  /// with `HostError.closed`, every resident key is passivated with its snapshot written, and run()
  /// returns; a new host reads every acknowledged request back.
  @Test func aGracefulShutdownClosesTheHost() async throws {
    let folder = scratchFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let harness = try Harness(folder: folder)
    try await testGracefulShutdown { trigger in
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await harness.service.run() }
        for key in 0..<20 {
          _ = try await harness.service.ask(.deposit(key), to: "p\(key)", id: "d\(key)")
        }
        #expect(harness.host.counts.resident == 20)
        trigger.triggerGracefulShutdown()
        try await group.waitForAll()
      }
    }
    #expect(harness.host.counts.resident == 0)
    #expect(harness.host.counts.passivations == 20)
    await #expect(throws: HostError.closed) {
      try await harness.service.ask(.deposit(1), to: "p1", id: "late")
    }
    #expect(harness.counter("dripper.host.passivations", [("reason", "closing")]) == 20)
    let messages = harness.logs.entries.filter { $0.level == .info }.map { "\($0.message)" }
    #expect(messages == ["host running", "host closing", "host closed"])

    let reopened = try Harness(folder: folder)
    for key in 0..<20 {
      #expect(try await reopened.host.state(of: "p\(key)") == Purse.State(balance: key))
    }
    await reopened.host.close()
  }

  /// A cancelled service closes its host all the same.
  @Test func aCancelledServiceClosesTheHost() async throws {
    let harness = try Harness()
    _ = try await harness.service.ask(.deposit(5), to: "a", id: "1")
    let run = Task { try await harness.service.run() }
    run.cancel()
    try await run.value
    #expect(harness.host.counts.resident == 0)
    await #expect(throws: HostError.closed) { try await harness.host.pour(.deposit(1), to: "a", id: "2") }
  }

  /// Logs: a key's activation and passivation at debug with the key in the metadata; nothing per
  /// pour above debug, and never the key in a message.
  @Test func logsTellOfKeysAtDebugWithTheKeyInMetadata() async throws {
    let harness = try Harness()
    for number in 0..<50 { _ = try await harness.service.ask(.deposit(1), to: "alice", id: "\(number)") }
    await harness.host.passivate("alice")
    let entries = harness.logs.entries
    #expect(entries.allSatisfy { $0.level <= .debug })
    #expect(entries.allSatisfy { !"\($0.message)".contains("alice") })
    let activated = try #require(entries.first { "\($0.message)" == "key activated" })
    #expect(activated.metadata["dripper.key"] == "alice")
    #expect(activated.metadata["dripper.host"] == "purses")
    let passivated = try #require(entries.first { "\($0.message)" == "key passivated" })
    #expect(passivated.metadata["dripper.reason"] == "requested")
    await harness.host.close()
  }

  /// Metrics: pours by outcome, their durations, activations by source, passivations by reason,
  /// evictions, resident keys and reminders; no dimension is a key.
  @Test func metricsCountWhatChanged() async throws {
    let folder = scratchFolder()
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let clock = TestClock()
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let lifetime = HostLifetime(
      idleAfter: nil, maximumResident: 2, time: .controlled(by: clock, startingAt: start))
    let harness = try Harness(folder: folder, lifetime: lifetime)
    let service = harness.service
    _ = try await service.ask(.deposit(10), to: "a", id: "1")
    _ = try await service.ask(.deposit(10), to: "a", id: "1")  // a retry
    await #expect(throws: HostError.requestMismatch(key: "a", id: "1")) {
      try await service.ask(.deposit(99), to: "a", id: "1")
    }
    _ = try await service.pour(.remindAt(start.addingTimeInterval(60)), to: "b", id: "r")
    _ = try await service.ask(.deposit(1), to: "c", id: "1")  // over the cap of 2: one goes
    await harness.host.settle()
    #expect(harness.counter("dripper.host.pours", [("outcome", "applied")]) == 3)
    #expect(harness.counter("dripper.host.pours", [("outcome", "retry")]) == 1)
    #expect(harness.counter("dripper.host.pours", [("outcome", "refused")]) == 1)
    #expect(
      try harness.metrics.expectTimer("dripper.host.pour.duration", [("host", "purses")]).values.count == 5)
    #expect(harness.counter("dripper.host.activations", [("source", "new")]) == 3)
    #expect(harness.counter("dripper.host.evictions") == 1)
    #expect(harness.counter("dripper.host.passivations", [("reason", "evicted")]) == 1)
    #expect(try harness.metrics.expectMeter("dripper.host.resident", [("host", "purses")]).lastValue == 2)
    #expect(
      try harness.metrics.expectMeter("dripper.host.reminders.pending", [("host", "purses")]).lastValue == 1)

    await harness.host.passivate("b")  // the reminder wakes it from its folder
    await clock.advance(by: .seconds(61))
    await harness.host.settle()
    await harness.host.finish("b")
    #expect(try await harness.host.state(of: "b") == Purse.State(balance: 1))
    #expect(harness.counter("dripper.host.reminders.fired") == 1)
    #expect(harness.counter("dripper.host.activations", [("source", "storage")]) == 1)
    #expect(
      try harness.metrics.expectMeter("dripper.host.reminders.pending", [("host", "purses")]).lastValue == 0)

    let dimensions =
      harness.metrics.counters.flatMap(\.dimensions) + harness.metrics.meters.flatMap(\.dimensions)
    #expect(dimensions.allSatisfy { !["a", "b", "c"].contains($0.1) })
    await harness.host.close()
  }

  /// Traces: a request is a span with the key as an attribute, an error recorded on a refused
  /// one, and the effects its reduction starts run in its context.
  @Test func aRequestIsASpanItsEffectsRunIn() async throws {
    let harness = try Harness()
    _ = try await harness.service.pour(.audit, to: "a", id: "1")
    await #expect(throws: HostError.self) { try await harness.service.pour(.deposit(1), to: "a", id: "1") }
    await harness.host.finish("a")
    let spans = harness.tracer.finishedSpans
    #expect(spans.map(\.operationName) == ["dripper.pour", "dripper.pour"])
    #expect(spans.map { $0.attributes["dripper.key"]?.toSpanAttribute() } == ["a", "a"])
    #expect(spans[0].errors.isEmpty)
    #expect(spans[1].errors.count == 1)
    #expect(harness.spans.value == [spans[0].spanID])
    await harness.host.close()
  }
}
