import CabCore
import CabDispatch
import CabRedis
import CabTracking
import Foundation
import Synchronization

/// `FleetReplication` over Redis: accepted positions go out through a `FleetPositionPublisher`, other nodes'
/// positions come in through a `FleetReplica`, and the ingest rate limit is also asked of a `ClusterRateLimiter`.
///
/// Degraded, not down: while Redis is away the publisher keeps each driver's newest position (sent when Redis is
/// back), the replica reconnects by itself, and the rate limit is not asked for a second after a failure (so a
/// paused Redis costs one request a second its timeout, not every request), the node's own limit deciding alone.
public final class RedisFleetReplication: FleetReplication {
    /// Settings.
    public struct Configuration: Sendable, Equatable {
        /// The Redis server.
        public var endpoint: RedisEndpoint
        /// This node's id (unique in the cluster).
        public var node: String
        /// The city: the prefix of the shared keys.
        public var city: String
        /// The cluster-wide rate limit: batches in a burst and per second (the node's `IngestConfiguration`'s).
        public var rateLimitBurst: Double
        /// Batches per second over time.
        public var rateLimitBatchesPerSecond: Double
        /// How long the rate limit waits for Redis before the node's own limit decides alone.
        public var rateLimitTimeoutMilliseconds: Int
        /// The publisher's settings.
        public var publisher: FleetPositionPublisher.Configuration

        /// Creates settings.
        public init(
            endpoint: RedisEndpoint, node: String, city: String, rateLimitBurst: Double,
            rateLimitBatchesPerSecond: Double, rateLimitTimeoutMilliseconds: Int = 250,
            publisher: FleetPositionPublisher.Configuration = .init()
        ) {
            self.endpoint = endpoint
            self.node = node
            self.city = city
            self.rateLimitBurst = rateLimitBurst
            self.rateLimitBatchesPerSecond = rateLimitBatchesPerSecond
            self.rateLimitTimeoutMilliseconds = rateLimitTimeoutMilliseconds
            self.publisher = publisher
        }
    }

    private struct Link {
        var readerUp = false
        var problem: String?
        var limiterDownUntil: ContinuousClock.Instant?
    }

    /// The settings.
    public let configuration: Configuration
    private let keys: ClusterKeys
    private let publisher: FleetPositionPublisher
    private let limiter: ClusterRateLimiter
    private let link = Mutex(Link())
    private let replica = Mutex<FleetReplica?>(nil)
    private let connectedGauge: any GaugeMetric
    private let receivedCounter: any CounterMetric
    private let limiterUnavailable: any CounterMetric
    private let log: @Sendable (String, [String: String]) -> Void

    /// A link for `configuration.node`, counting into `metrics` and reporting changes of state to `log`
    /// (message, metadata). Call `start(applying:)` to follow the other nodes.
    public init(
        configuration: Configuration, metrics: any MetricsFactory,
        log: @escaping @Sendable (String, [String: String]) -> Void = { _, _ in }
    ) {
        self.configuration = configuration
        self.log = log
        keys = ClusterKeys(city: configuration.city)
        connectedGauge = metrics.makeGauge(
            "cluster_connected", help: "1 while this node's Redis link answers, 0 while it runs on its own.")
        receivedCounter = metrics.makeCounter(
            "cluster_positions_received_total", help: "Positions received from other nodes (the warm start included).")
        limiterUnavailable = metrics.makeCounter(
            "cluster_rate_limit_unavailable_total",
            help: "Location batches judged by this node's own rate limit alone because Redis did not answer.")
        let writer = RedisClient(configuration.endpoint, timeoutMilliseconds: 1_000)
        publisher = FleetPositionPublisher(
            redis: writer, keys: keys, node: configuration.node, configuration: configuration.publisher)
        limiter = ClusterRateLimiter(
            redis: RedisClient(configuration.endpoint, timeoutMilliseconds: configuration.rateLimitTimeoutMilliseconds),
            keys: keys, capacity: configuration.rateLimitBurst,
            refillPerSecond: configuration.rateLimitBatchesPerSecond)
        connectedGauge.set(0)
    }

    /// Loads the fleet as Redis holds it (a warm start), then follows the other nodes' positions, handing each
    /// batch to `apply`, and every node's positions as numbered fleet events (this node's too, in the cluster's
    /// order) to `events`; starts publishing. Returns how many positions the warm start loaded.
    @discardableResult
    public func start(
        applying apply: @escaping @Sendable ([(driver: DriverID, position: DriverPosition)]) -> Void,
        events: @escaping @Sendable ([(id: UInt64, driver: DriverID, position: DriverPosition)]) -> Void = { _ in }
    ) -> Int {
        let publisher = self.publisher
        let follower = FleetReplica(
            endpoint: configuration.endpoint, keys: keys, node: configuration.node,
            onEvent: { [weak self] event in self?.readerSaw(event) },
            onFleetEvents: { numbered in
                if let last = numbered.last { publisher.observe(eventID: last.eventID) }
                events(numbered.map { ($0.eventID, $0.position.driver, $0.position.position) })
            },
            onPositions: { [receivedCounter] positions in
                receivedCounter.increment(by: Double(positions.count))
                apply(positions.map { ($0.driver, $0.position) })
            })
        replica.withLock { $0 = follower }
        let warm = follower.start()
        if follower.warmStartAnswered {
            // Redis answers: the cluster numbers fleet events from now on. The reader, starting on its own thread,
            // would say so a moment later, and a fix ingested meanwhile would be numbered here, ahead of the
            // cluster's ids.
            readerSaw(.connected(runID: ""))
        }
        publisher.start()
        return warm
    }

    public func publish(_ driver: DriverID, at position: DriverPosition) {
        publisher.publish(ReplicatedPosition(driver: driver, position: position))
    }

    public var numbersFleetEvents: Bool { link.withLock { $0.readerUp } }

    /// Notes the highest fleet event id this node numbered itself (while Redis was away): ids the cluster gives
    /// later start above it.
    public func observe(eventID: UInt64) { publisher.observe(eventID: eventID) }

    public func admitBatch(from driver: DriverID) -> ClusterAdmission {
        let now = ContinuousClock.now
        if let until = link.withLock({ $0.limiterDownUntil }), now < until {
            limiterUnavailable.increment()
            return .unavailable
        }
        switch limiter.take("driver:" + driver.rawValue) {
        case .allowed:
            link.withLock { $0.limiterDownUntil = nil }
            return .allowed
        case .refused(let milliseconds):
            return .refused(retryAfterSeconds: max(1, (milliseconds + 999) / 1_000))
        case .unavailable:
            link.withLock { $0.limiterDownUntil = now + .seconds(1) }
            limiterUnavailable.increment()
            return .unavailable
        }
    }

    public var status: ClusterLinkStatus {
        let state = link.withLock { $0 }
        let counts = publisher.counts
        // The stream reader blocks on Redis all the time, so it is the first to notice Redis going and coming.
        let connected = state.readerUp
        return ClusterLinkStatus(
            node: configuration.node, city: configuration.city, connected: connected,
            detail: connected
                ? nil
                : "Redis at \(configuration.endpoint) does not answer (\(state.problem ?? "not connected yet")): this "
                    + "node serves its own drivers' positions and applies its own rate limit; start Redis or fix "
                    + "cluster.redis_url, and positions catch up by themselves",
            published: counts.published, received: replica.withLock { $0?.receivedCount ?? 0 },
            pending: publisher.pendingCount)
    }

    public func stop() {
        publisher.stop()
        replica.withLock { r in
            defer { r = nil }
            return r
        }?.stop()
    }

    private func readerSaw(_ event: RedisEvent) {
        let (changed, up) = link.withLock { state -> (Bool, Bool) in
            let was = state.readerUp
            switch event {
            case .connected, .restarted:
                state.readerUp = true
                state.problem = nil
            case .disconnected(let why):
                state.readerUp = false
                state.problem = why
            }
            return (was != state.readerUp, state.readerUp)
        }
        connectedGauge.set(up ? 1 : 0)
        guard changed else { return }
        if up {
            log("cluster link up", ["redis": "\(configuration.endpoint)", "node": configuration.node])
        } else {
            log(
                "cluster link down: serving on this node's own state until Redis answers",
                ["redis": "\(configuration.endpoint)", "node": configuration.node])
        }
        if case .restarted = event {
            log("Redis restarted: positions are published again from now on", ["node": configuration.node])
        }
    }
}
