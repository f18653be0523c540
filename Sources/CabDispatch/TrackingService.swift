import CabCore
import CabGeo
import CabTracking
import Dispatch
import Synchronization

/// Settings of live tracking: the ingestion rules, the index, the fleet stream and the history writer.
public struct TrackingConfiguration: Sendable {
    /// The server's rules for accepting fixes.
    public var ingest: IngestConfiguration
    /// The nearest-driver index (cell size, staleness).
    public var index: DriverIndexConfiguration
    /// Most fixes in one `POST /v1/driver/locations`.
    public var maxFixesPerBatch: Int
    /// How often fleet streams get the positions published since the last tick; nil: only when `tick()` is called.
    public var tickInterval: Duration?
    /// How often fleet streams get a heartbeat comment; nil: only when `sendHeartbeats()` is called.
    public var heartbeatInterval: Duration?
    /// Events buffered per fleet-stream client before its oldest are dropped.
    public var streamBufferCapacity: Int
    /// Events kept for `Last-Event-ID` resumption.
    public var replayCapacity: Int
    /// Records the history queue holds before ingest requests wait for the writer.
    public var historyQueueCapacity: Int
    /// Records per history transaction.
    public var historyBatchSize: Int
    /// How long the history writer waits for a full batch before writing a partial one, in milliseconds (fewer
    /// durable commits under load; a crash can lose this much more of the trail).
    public var historyLingerMilliseconds: Int
    /// Most points in one trail answer.
    public var trailLimit: Int

    /// Creates a configuration; the defaults suit a city.
    public init(
        ingest: IngestConfiguration = IngestConfiguration(),
        index: DriverIndexConfiguration = DriverIndexConfiguration(),
        maxFixesPerBatch: Int = 100, tickInterval: Duration? = .seconds(1), heartbeatInterval: Duration? = .seconds(15),
        streamBufferCapacity: Int = 2_048, replayCapacity: Int = 20_000, historyQueueCapacity: Int = 100_000,
        historyBatchSize: Int = 10_000, historyLingerMilliseconds: Int = 500, trailLimit: Int = 10_000
    ) {
        self.ingest = ingest
        self.index = index
        self.maxFixesPerBatch = maxFixesPerBatch
        self.tickInterval = tickInterval
        self.heartbeatInterval = heartbeatInterval
        self.streamBufferCapacity = streamBufferCapacity
        self.replayCapacity = replayCapacity
        self.historyQueueCapacity = historyQueueCapacity
        self.historyBatchSize = historyBatchSize
        self.historyLingerMilliseconds = historyLingerMilliseconds
        self.trailLimit = trailLimit
    }
}

/// Live tracking for the API: every driver's latest position (`fleet`), the fleet stream (`streams`), and the
/// history writer, with their counters. `start()` runs the tick and heartbeat timers; `shutdown()` stops them
/// and writes the queued history.
public final class TrackingService: Sendable {
    /// The settings.
    public let configuration: TrackingConfiguration
    /// Latest positions, statuses and ingestion state. Dispatch reads `nearest` and sets statuses through
    /// `setStatus(_:for:)` here (which also tells the fleet stream).
    public let fleet: LiveFleet<DriverID>
    /// The fleet stream's hub.
    public let streams: FleetBroadcaster<DriverID>
    /// The background history writer.
    public let history: LocationHistoryWriter
    /// Drivers' vehicles and device keys.
    public let accounts: any AccountRepository
    /// The stored trails.
    public let historyStore: any LocationHistoryRepository
    let now: @Sendable () -> Instant
    let counters: TrackingCounters
    private let openStreams = Mutex<[ObjectIdentifier: any FleetStreamClient]>([:])
    private let timers = Mutex<[TimerBox]>([])
    /// The cluster link (`connect(_:)`, FleetReplication.swift); nil on a single node.
    let replicationLink = Mutex<(any FleetReplication)?>(nil)
    /// Told of drivers whose position just moved, here or on another node (`onDriversMoved(_:)`).
    private let movedObserver = Mutex<Callback<[DriverID]>?>(nil)

    /// Creates the service over `accounts` (drivers' vehicles, device keys) and `history` (trails), counting into
    /// `metrics` and reading the time from `now`. Call `start()` to run the timers.
    public init(
        configuration: TrackingConfiguration = TrackingConfiguration(),
        accounts: any AccountRepository, history: any LocationHistoryRepository, metrics: any MetricsFactory,
        now: @escaping @Sendable () -> Instant = { Instant.now() }
    ) {
        self.configuration = configuration
        self.accounts = accounts
        self.historyStore = history
        self.now = now
        let counters = TrackingCounters(metrics)
        self.counters = counters
        fleet = LiveFleet(ingest: configuration.ingest, index: configuration.index)
        // Event ids continue across restarts: seeded from the clock at 1,000 ids per millisecond.
        let seed = UInt64(max(1, now().millisecondsSinceEpoch)) * 1_000
        streams = FleetBroadcaster(
            configuration: .init(
                bufferCapacity: configuration.streamBufferCapacity, replayCapacity: configuration.replayCapacity,
                firstEventID: seed))
        self.history = LocationHistoryWriter(
            repository: history, capacity: configuration.historyQueueCapacity,
            batchSize: configuration.historyBatchSize, lingerMilliseconds: configuration.historyLingerMilliseconds,
            onError: { _, lost in counters.historyLost.increment(by: Double(lost)) },
            onWritten: { counters.historyWritten.increment(by: Double($0)) })
    }

    /// Tells `observer` of the drivers whose position moved, as soon as it did: a batch of fixes accepted here, or
    /// positions another node accepted (`applyReplicated`). Called on the ingesting thread: quick work only
    /// (dispatch queues its follow-up). One observer; a second call replaces the first.
    public func onDriversMoved(_ observer: @escaping @Sendable ([DriverID]) -> Void) {
        movedObserver.withLock { $0 = Callback(observer) }
    }

    /// Tells the observer (if any) that `drivers` moved.
    func driversMoved(_ drivers: [DriverID]) {
        guard !drivers.isEmpty, let observer = movedObserver.withLock({ $0 }) else { return }
        observer.call(drivers)
    }

    /// Starts the tick and heartbeat timers (those configured).
    public func start() {
        var started: [TimerBox] = []
        if let interval = configuration.tickInterval {
            started.append(TimerBox(interval: interval) { [weak self] in self?.tick() })
        }
        if let interval = configuration.heartbeatInterval {
            started.append(TimerBox(interval: interval) { [weak self] in self?.sendHeartbeats() })
        }
        timers.withLock { $0 += started }
    }

    /// Stops the timers, ends the fleet streams and writes every queued history record (clean shutdown).
    public func shutdown() {
        let stopped = timers.withLock { timers in
            defer { timers = [] }
            return timers
        }
        for timer in stopped { timer.cancel() }
        history.close()
    }

    /// Applies the ingestion rules to `fixes` from `driver`, moves the driver, publishes the new position to the
    /// fleet stream, queues the accepted fixes for history and counts what was dropped.
    public func ingest(_ fixes: [LocationFix], from driver: DriverID) -> IngestOutcome {
        // Without a reserved room nothing returns nil.
        ingest(fixes, from: driver, historyRoom: nil)!
    }

    /// `ingest` for an event-loop thread: nil, and nothing done, when it would wait (the driver's first
    /// position reads the store, or the history queue has no room for `fixes`); call `ingest` where waiting
    /// is allowed then.
    public func ingestWithoutWaiting(_ fixes: [LocationFix], from driver: DriverID) -> IngestOutcome? {
        // A node in a cluster asks Redis for the shared rate limit (a round trip): that waits, so it is parked.
        guard replication == nil, let room = history.reserveRoom(for: fixes.count) else { return nil }
        let outcome = ingest(fixes, from: driver, historyRoom: room)
        if outcome?.accepted.isEmpty ?? true { history.release(room) }  // else `enqueue` took it
        return outcome
    }

    /// With `historyRoom`, returns nil before any effect where it would read the store.
    private func ingest(_ fixes: [LocationFix], from driver: DriverID, historyRoom: HistoryRoom?) -> IngestOutcome? {
        let replication = self.replication  // the link is read once per batch (it is behind a lock)
        if let replication, let refused = clusterRefusal(of: fixes, from: driver, by: replication) { return refused }
        let time = now().millisecondsSinceEpoch
        let outcome: IngestOutcome
        // The driver's position after the batch, when the batch moved it.
        let moved: DriverPosition?
        if let (known, position) = fleet.ingestKnown(fixes, from: driver, now: time) {
            outcome = known
            moved = position
        } else {
            if historyRoom != nil { return nil }
            // A driver's first position: its vehicle class comes from the store, outside the fleet's lock, and
            // so does its newest stored fix, so that a fix replayed after a restart is still refused.
            outcome = fleet.ingest(
                fixes, from: driver, vehicleClass: vehicleClass(of: driver), resumingAfter: newestStoredFix(of: driver),
                now: time)
            moved = outcome.latest == nil ? nil : fleet.position(of: driver)
        }
        if let moved {
            // Numbered by the cluster, the fleet stream hears of it when it comes back (`applyClusterEvents`).
            if replication?.numbersFleetEvents != true { streams.publish(driver, at: moved) }
            replication?.publish(driver, at: moved)
            driversMoved([driver])
        }
        if !outcome.accepted.isEmpty {
            counters.accepted.increment(by: Double(outcome.accepted.count))
            history.enqueue(
                outcome.accepted.map { fix in
                    DriverLocationRecord(
                        driverID: driver, time: Instant(millisecondsSinceEpoch: fix.timeMilliseconds),
                        coordinate: fix.coordinate, accuracyMeters: fix.accuracyMeters,
                        speedMetersPerSecond: fix.speedMetersPerSecond, headingDegrees: fix.headingDegrees)
                }, into: historyRoom)
        }
        for reason in DropReason.allCases where outcome.dropped[reason] > 0 {
            counters.dropped.increment(["reason": reason.rawValue], by: Double(outcome.dropped[reason]))
        }
        return outcome
    }

    /// `driver`'s newest stored fix; nil when none or when the store cannot be read (counted: the rules then
    /// start afresh for this driver, as before replay protection survived restarts).
    func newestStoredFix(of driver: DriverID) -> LocationFix? {
        do {
            guard let record = try historyStore.newestLocation(of: driver) else { return nil }
            return LocationFix(
                coordinate: record.coordinate, timeMilliseconds: record.time.millisecondsSinceEpoch, accuracyMeters: 0)
        } catch {
            counters.resumeFailures.increment()
            return nil
        }
    }

    /// Sets `driver`'s status (online drivers are `available`; dispatch sets `busy`); the fleet stream hears of it.
    public func setStatus(_ status: DriverStatus, for driver: DriverID) {
        fleet.setStatus(status, for: driver)
        if let position = fleet.position(of: driver) { announce(driver, at: position) }
    }

    /// Delivers the positions published since the last tick to the fleet streams and updates the gauges.
    public func tick() {
        let numberedHere = streams.tick(now: now().millisecondsSinceEpoch)
        if let replication {
            if let numberedHere { replication.observe(eventID: numberedHere) }
            counters.clusterEventsDropped.set(Double(streams.droppedNumberedCount))
        }
        let open = openStreams.withLock { Array($0.values) }
        var lost = 0
        for stream in open { lost += stream.collectNewlyDropped() }
        if lost > 0 { counters.streamDropped.increment(by: Double(lost)) }
        counters.streamClients.set(Double(open.count))
        counters.drivers.set(Double(fleet.count))
    }

    /// Queues a heartbeat comment on every open fleet stream.
    public func sendHeartbeats() {
        for stream in openStreams.withLock({ Array($0.values) }) { stream.heartbeat() }
    }

    /// Open fleet streams, and the events their clients have waiting and have lost (tests and diagnostics).
    public var streamStatistics: (clients: Int, buffered: Int, dropped: Int) {
        let open = openStreams.withLock { Array($0.values) }
        let counts = open.map(\.subscriptionCounts)
        return (open.count, counts.reduce(0) { $0 + $1.buffered }, counts.reduce(0) { $0 + $1.dropped })
    }

    /// Counts fixes dropped before the ingestion rules saw them (a malformed OsmAnd report).
    public func countDropped(_ reason: DropReason, count: Int = 1) {
        counters.dropped.increment(["reason": reason.rawValue], by: Double(count))
    }

    /// Keeps `client` (one open fleet stream) for heartbeats and the stream counters until `unregister`.
    public func register(_ client: any FleetStreamClient) {
        openStreams.withLock { $0[ObjectIdentifier(client)] = client }
    }

    /// Forgets a closed fleet stream, counting the events it lost.
    public func unregister(_ client: any FleetStreamClient) {
        let lost = client.collectNewlyDropped()
        if lost > 0 { counters.streamDropped.increment(by: Double(lost)) }
        openStreams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(client)) }
    }

    private func vehicleClass(of driver: DriverID) -> VehicleClass {
        do {
            return try accounts.driver(driver).map { VehicleClass($0.vehicleType) } ?? .standard
        } catch {
            counters.lookupFailures.increment()
            return .standard
        }
    }
}

/// One open fleet stream as tracking sees it (the SSE adapter in `CabAPI` implements it).
public protocol FleetStreamClient: AnyObject, Sendable {
    /// Events this client lost to its full buffer since the last call.
    func collectNewlyDropped() -> Int
    /// Queues a heartbeat and wakes the client's connection.
    func heartbeat()
    /// Events waiting in the client's buffer, and lost in all.
    var subscriptionCounts: (buffered: Int, dropped: Int) { get }
}

/// The tracking counters on the app's registry.
struct TrackingCounters: Sendable {
    let accepted: any CounterMetric
    let dropped: any CounterMetric
    let historyWritten: any CounterMetric
    let historyLost: any CounterMetric
    let streamDropped: any CounterMetric
    let streamClients: any GaugeMetric
    let drivers: any GaugeMetric
    let lookupFailures: any CounterMetric
    let resumeFailures: any CounterMetric
    let clusterEventsDropped: any GaugeMetric

    init(_ metrics: any MetricsFactory) {
        accepted = metrics.makeCounter("tracking_fixes_accepted_total", help: "Fixes that passed the ingestion rules.")
        dropped = metrics.makeCounter(
            "tracking_fixes_dropped_total", help: "Fixes dropped by the ingestion rules, by reason.",
            labelNames: ["reason"])
        historyWritten = metrics.makeCounter("tracking_history_written_total", help: "Fixes written to the history.")
        historyLost = metrics.makeCounter(
            "tracking_history_lost_total", help: "Accepted fixes the history store refused (lost from the trail).")
        streamDropped = metrics.makeCounter(
            "tracking_stream_events_dropped_total", help: "Fleet-stream events dropped because a client read slowly.")
        streamClients = metrics.makeGauge("tracking_stream_clients", help: "Open fleet streams.")
        drivers = metrics.makeGauge("tracking_drivers", help: "Drivers with a known position.")
        lookupFailures = metrics.makeCounter(
            "tracking_vehicle_lookup_failures_total",
            help: "Vehicle look-ups that failed (the driver counted as standard).")
        clusterEventsDropped = metrics.makeGauge(
            "tracking_stream_cluster_events_dropped",
            help: "The cluster's fleet events this node's stream dropped since start: ids at or below one it had "
                + "numbered itself while its Redis link was down.")
        resumeFailures = metrics.makeCounter(
            "tracking_resume_lookup_failures_total",
            help: "Newest-stored-fix look-ups that failed (that driver's replay protection started afresh).")
    }
}

/// A repeating timer on its own queue. `@unchecked Sendable`: dispatch sources are thread-safe to cancel.
private struct TimerBox: @unchecked Sendable {
    let source: any DispatchSourceTimer

    init(interval: Duration, action: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "swiftcab.tracking.timer"))
        let nanoseconds = Int(interval / .nanoseconds(1))
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        source.setEventHandler(handler: action)
        source.resume()
    }

    func cancel() { source.cancel() }
}
