public import Dripper
public import Logging
public import Metrics
import Synchronization
public import Tracing

/// What a ``HostService`` tells of its host: swift-log logs, swift-metrics metrics and
/// swift-distributed-tracing spans.
///
/// Make it first, give its ``observer`` to the host, then give both to the service:
///
/// ```swift
/// let telemetry = HostTelemetry<String>(name: "wallets", logger: Logger(label: "wallets"))
/// let host = try StationHost<String, Wallet>(
///   storage: .folder("data/wallets", codec: .json), observer: telemetry.observer
/// ) { _ in Wallet.State() } dripper: { _ in Wallet() }
/// let service = HostService(host, telemetry: telemetry)
/// ```
///
/// **Logs.** A key's activation and passivation at `debug`, a key whose storage failed at `error`,
/// a key's diagnostics at `warning`, the host's start and shutdown at `info`; the key is in the
/// metadata (`dripper.key`), never in the message. Nothing is logged per pour above `debug`.
///
/// **Metrics**, each with a `host` dimension (the ``name``), never the key:
///
/// | Name | Kind | What |
/// | --- | --- | --- |
/// | `dripper.host.pours` | counter | requests poured through the service, by `outcome`: `applied`, `retry`, `refused` |
/// | `dripper.host.pour.duration` | timer | a request's time, from its pour to its durable answer |
/// | `dripper.host.activations` | counter | Stations made, by `source`: `new`, `storage` |
/// | `dripper.host.passivations` | counter | Stations closed, by `reason`: `idle`, `evicted`, `requested`, `closing` |
/// | `dripper.host.evictions` | counter | Stations closed to stay under the cap |
/// | `dripper.host.failures` | counter | keys whose storage failed |
/// | `dripper.host.reminders.fired` | counter | reminders poured |
/// | `dripper.host.resident` | meter | keys whose Station is live |
/// | `dripper.host.failed` | meter | keys failed now, waiting for their retry |
/// | `dripper.host.reminders.pending` | meter | keys with a reminder waiting |
///
/// Counters are incremented by what changed; meters are set to the host's counts as they change.
///
/// **Traces.** A request poured through the service is a span, `dripper.pour`, with the key as an
/// attribute (`dripper.key`): it covers the reduction, the append and the durable answer; the
/// effects the request's reduction starts run inside its context.
public final class HostTelemetry<Key: StationKey>: Sendable {
  /// The host's name: the `host` dimension of every metric, and the logger's `dripper.host`.
  public let name: String
  /// Where the host's logs go.
  public let logger: Logger
  let tracer: any Tracer
  let metrics: Metrics
  /// The cumulative counts last told, to count increments from.
  private let last = Mutex(HostCounts())

  /// Telemetry for a host named `name`.
  ///
  /// - Parameters:
  ///   - name: The host's name, the `host` dimension of its metrics.
  ///   - logger: Where its logs go.
  ///   - metrics: Where its metrics go; the process's `MetricsSystem` by default.
  ///   - tracer: Where its spans go; the process's `InstrumentationSystem` by default.
  public init(
    name: String, logger: Logger, metrics: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil
  ) {
    self.name = name
    var logger = logger
    logger[metadataKey: "dripper.host"] = "\(name)"
    self.logger = logger
    self.tracer = tracer ?? InstrumentationSystem.tracer
    self.metrics = Metrics(host: name, factory: metrics ?? MetricsSystem.factory)
  }

  /// The observer to give the host: what it tells becomes logs and metrics.
  public var observer: StationHostObserver<Key> {
    StationHostObserver(
      activated: { [self] key in
        logger.debug("key activated", metadata: ["dripper.key": "\(key.stationKeyText)"])
      },
      passivated: { [self] key, reason in
        metrics.passivations(reason).increment()
        logger.debug(
          "key passivated",
          metadata: ["dripper.key": "\(key.stationKeyText)", "dripper.reason": "\(reason.rawValue)"])
      },
      failed: { [self] key, error in
        metrics.failures.increment()
        logger.error(
          "key's storage failed: its pours are refused until it is read again",
          metadata: ["dripper.key": "\(key.stationKeyText)", "dripper.error": "\(error)"])
      },
      diagnostic: { [self] key, diagnostic in
        logger.warning("\(diagnostic)", metadata: ["dripper.key": "\(key.stationKeyText)"])
      },
      counts: { [self] counts in record(counts) })
  }

  /// Counts what changed since the counts last told, and sets the meters.
  func record(_ counts: HostCounts) {
    let (recovered, made, evicted, fired) = last.withLock { last in
      // Told from several threads, possibly out of order: a cumulative count only grows.
      let recovered = max(0, counts.recoveries - last.recoveries)
      let made = max(0, counts.activations - last.activations) - recovered
      let evicted = max(0, counts.evictions - last.evictions)
      let fired = max(0, counts.remindersFired - last.remindersFired)
      last.recoveries = max(last.recoveries, counts.recoveries)
      last.activations = max(last.activations, counts.activations)
      last.evictions = max(last.evictions, counts.evictions)
      last.remindersFired = max(last.remindersFired, counts.remindersFired)
      return (recovered, max(0, made), evicted, fired)
    }
    if made > 0 { metrics.activationsNew.increment(by: Int64(made)) }
    if recovered > 0 { metrics.activationsRecovered.increment(by: Int64(recovered)) }
    if evicted > 0 { metrics.evictions.increment(by: Int64(evicted)) }
    if fired > 0 { metrics.remindersFired.increment(by: Int64(fired)) }
    metrics.resident.set(counts.resident)
    metrics.failed.set(counts.failed)
    metrics.remindersPending.set(counts.remindersPending)
  }
}

/// The host's metrics, made once.
struct Metrics: Sendable {
  let poursApplied: Counter
  let poursRetried: Counter
  let poursRefused: Counter
  let pourDuration: Timer
  let activationsNew: Counter
  let activationsRecovered: Counter
  private let passivationsByReason: [PassivationReason: Counter]
  let evictions: Counter
  let failures: Counter
  let remindersFired: Counter
  let resident: Meter
  let failed: Meter
  let remindersPending: Meter

  init(host: String, factory: any MetricsFactory) {
    let host = [("host", host)]
    func counter(_ label: String, _ more: [(String, String)] = []) -> Counter {
      Counter(label: label, dimensions: host + more, factory: factory)
    }
    poursApplied = counter("dripper.host.pours", [("outcome", "applied")])
    poursRetried = counter("dripper.host.pours", [("outcome", "retry")])
    poursRefused = counter("dripper.host.pours", [("outcome", "refused")])
    pourDuration = Timer(label: "dripper.host.pour.duration", dimensions: host, factory: factory)
    activationsNew = counter("dripper.host.activations", [("source", "new")])
    activationsRecovered = counter("dripper.host.activations", [("source", "storage")])
    let reasons: [PassivationReason] = [.idle, .evicted, .requested, .closing]
    passivationsByReason = Dictionary(
      uniqueKeysWithValues: reasons.map {
        ($0, counter("dripper.host.passivations", [("reason", $0.rawValue)]))
      })
    evictions = counter("dripper.host.evictions")
    failures = counter("dripper.host.failures")
    remindersFired = counter("dripper.host.reminders.fired")
    resident = Meter(label: "dripper.host.resident", dimensions: host, factory: factory)
    failed = Meter(label: "dripper.host.failed", dimensions: host, factory: factory)
    remindersPending = Meter(label: "dripper.host.reminders.pending", dimensions: host, factory: factory)
  }

  func passivations(_ reason: PassivationReason) -> Counter { passivationsByReason[reason]! }
}
