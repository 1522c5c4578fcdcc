public import Dripper
import Logging
public import ServiceLifecycle
import Tracing

/// A ``StationHost`` run as a swift-service-lifecycle `Service`: it closes on graceful shutdown.
///
/// ```swift
/// let service = HostService(host, telemetry: telemetry)
/// let app = Application(router: router, services: [service])   // Hummingbird: the server stops first
/// try await app.runService()                                     // SIGTERM, SIGINT: a graceful shutdown
/// ```
///
/// ``run()`` returns once the host is closed, on a graceful shutdown (or when its task is
/// cancelled): the host refuses new pours with `HostError.closed`, the pours in flight are reduced,
/// every resident key is passivated, its snapshot written, all at once, and the host's timer
/// (sweeps, reminders) ends. A `ServiceGroup` shuts its services down in the reverse of their
/// order, so list the host **before** the HTTP server: the server stops taking requests and
/// finishes the ones it has, then the host closes. Hummingbird's `Application` runs the
/// `services` it is given before its server, so a host among them closes after it.
///
/// Requests poured through the service (``pour(_:to:id:)``, ``ask(_:to:id:)``) are counted,
/// timed and traced (see ``HostTelemetry``); the host's own ``StationHost/pour(_:to:)`` is
/// not.
public struct HostService<Key: StationKey, Feature: Dripper>: Service {
  /// The host the service runs.
  public let host: StationHost<Key, Feature>
  /// Where the host's logs, metrics and spans go.
  public let telemetry: HostTelemetry<Key>

  /// A service that runs `host` and closes it on a graceful shutdown.
  ///
  /// - Parameters:
  ///   - host: The host, made with `telemetry.observer` as its observer.
  ///   - telemetry: Where its logs, metrics and spans go.
  public init(_ host: StationHost<Key, Feature>, telemetry: HostTelemetry<Key>) {
    self.host = host
    self.telemetry = telemetry
  }

  /// Runs until a graceful shutdown or the task's cancellation, then closes the host and returns.
  public func run() async throws {
    let logger = telemetry.logger
    logger.info("host running", metadata: ["dripper.resident": "\(host.counts.resident)"])
    // Throws CancellationError when the task is cancelled: the host closes all the same.
    try? await gracefulShutdown()
    let began = ContinuousClock.now
    logger.info("host closing", metadata: ["dripper.resident": "\(host.counts.resident)"])
    await host.close()
    let counts = host.counts
    telemetry.record(counts)
    logger.info(
      "host closed",
      metadata: [
        "dripper.duration": "\(ContinuousClock.now - began)",
        "dripper.passivations": "\(counts.passivations)",
      ])
  }

  /// Pours a request into `key`, counted, timed and traced: see `StationHost.pour(_:to:id:effectsIn:)`.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - key: The key it goes to.
  ///   - id: The request's id: a retry with the same id is applied once.
  /// - Returns: The request's receipt, once it is applied and durable.
  /// - Throws: The host's `HostError`.
  public func pour(_ action: Feature.Action, to key: Key, id: String) async throws(HostError) -> PourReceipt {
    try await traced(key) { scope throws(HostError) in
      try await host.pour(action, to: key, id: id, effectsIn: scope)
    } receipt: {
      $0
    }
  }

  /// Runs a request in a span, counted and timed; its effects in the span's context.
  func traced<Value: Sendable>(
    _ key: Key, _ body: (RequestScope) async throws(HostError) -> Value,
    receipt: (Value) -> PourReceipt
  ) async throws(HostError) -> Value {
    let metrics = telemetry.metrics
    let began = ContinuousClock.now
    let span = telemetry.tracer.startSpan("dripper.pour", context: ServiceContext.current ?? .topLevel)
    span.attributes["dripper.key"] = key.stationKeyText
    defer {
      metrics.pourDuration.recordNanoseconds(Self.nanoseconds(ContinuousClock.now - began))
      span.end()
    }
    let context = span.context
    let scope = RequestScope { body in try await ServiceContext.withValue(context) { try await body() } }
    let outcome = await ServiceContext.withValue(context) { () async -> Result<Value, HostError> in
      do throws(HostError) { return .success(try await body(scope)) } catch { return .failure(error) }
    }
    switch outcome {
    case .success(let value):
      let receipt = receipt(value)
      span.attributes["dripper.sequence"] = Int64(clamping: receipt.sequence)
      span.attributes["dripper.retry"] = receipt.duplicate
      (receipt.duplicate ? metrics.poursRetried : metrics.poursApplied).increment()
      return value
    case .failure(let error):
      metrics.poursRefused.increment()
      span.recordError(error)
      span.setStatus(SpanStatus(code: .error, message: "\(error)"))
      throw error
    }
  }

  static func nanoseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}

extension HostService where Feature.Action: ReplyingAction {
  /// Pours a request into `key` and returns the feature's reply, counted, timed and traced: see
  /// `StationHost.ask(_:to:id:effectsIn:)`.
  ///
  /// - Parameters:
  ///   - action: The action.
  ///   - key: The key it goes to.
  ///   - id: The request's id: a retry with the same id gets the first reply.
  /// - Returns: The receipt and the reply, once the request is applied and durable.
  /// - Throws: The host's `HostError`.
  public func ask(
    _ action: Feature.Action, to key: Key, id: String
  ) async throws(HostError) -> Answer<Feature.Action.Reply> {
    try await traced(key) { scope throws(HostError) in
      try await host.ask(action, to: key, id: id, effectsIn: scope)
    } receipt: {
      $0.receipt
    }
  }
}
