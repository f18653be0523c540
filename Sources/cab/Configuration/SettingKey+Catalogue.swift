import CabAPI
import CabCore
import CabDispatch
import CabHTTP
import CabStore
import CabTracking

extension SettingKey {
    /// Every key of `cab serve`'s configuration. Defaults are read from each component's own configuration struct
    /// (STYLE.md §5), so that a setting nobody gives is exactly today's.
    static let all: [SettingKey] = general + http + tracking + dispatch + trip + store + cluster

    /// The key named `name`.
    static func named(_ name: String) -> SettingKey? { byName[name] }
    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    private static let general: [SettingKey] = [
        .init(
            "data_dir", .string(choices: []), default: .string("data/cab"), environment: "CAB_DATA", flag: "data",
            help: "data directory: the imported map and the store"),
        .init(
            "public_dir", .optionalString, default: .null, environment: "CAB_PUBLIC", flag: "public",
            help: "the web app's folder; null looks for Public/ in the working directory, beside or above the "
                + "executable, or share/swiftcab/Public of the install prefix"),
        .init(
            "tariff_file", .optionalString, default: .null, flag: "tariff",
            help: "tariff JSON file; null charges the standard tariff (1.20 EUR per km)"),
        .init(
            "log_level", .string(choices: logLevels), default: .string("info"), flag: "log-level",
            help: "the least severe log level written to standard error"),
    ]

    private static let http: [SettingKey] = {
        let d = HTTPServerConfiguration()
        return [
            .init(
                "http.host", .string(choices: []), default: .string(d.host), flag: "host",
                help: "numeric address to listen on (0.0.0.0 for all)"),
            .init(
                "http.port", .integer(0...65_535), default: .integer(d.port), flag: "port",
                help: "TCP port; 0 picks a free one (printed in `listening on`)"),
            .init(
                "http.threads", .integer(1...512), default: .integer(ServeSettings.defaultThreads), flag: "threads",
                help: "libmicrohttpd worker threads (default two per core, at least four)"),
            .init(
                "http.handler_threads", .integer(0...4096), default: .integer(d.handlerThreads),
                flag: "handler-threads",
                help: "threads running handlers that may block, their connections parked meanwhile (default four per "
                    + "core, at least 8); 0 runs them on the event-loop threads"),
            .init(
                "http.handler_queue_length", .integer(1...1_000_000), default: .integer(d.handlerQueueLength),
                help: "requests that may wait for a handler thread; more are answered 503 server_busy"),
            .init(
                "http.max_connections", .integer(1...1_000_000), default: .integer(d.maxConnections),
                help: "connections open at once; more are refused"),
            .init(
                "http.max_connections_per_address", .integer(0...1_000_000),
                default: .integer(d.maxConnectionsPerAddress), flag: "max-per-address",
                help: "connections open at once from one address; 0: no cap"),
            .init(
                "http.max_body_bytes", .integer(1_024...1_073_741_824), default: .integer(d.maxBodyBytes),
                help: "largest request body; larger ones are answered 413"),
            .init(
                "http.connection_timeout_seconds", .integer(0...86_400),
                default: .integer(d.connectionTimeoutSeconds), help: "idle seconds before a connection is closed"),
            .init(
                "http.shutdown_grace_seconds", .integer(0...600), default: .integer(seconds(d.shutdownGracePeriod)),
                help: "how long a stop waits for requests in flight"),
            .init(
                "http.request_header_timeout_seconds", .integer(1...3_600),
                default: .integer(seconds(d.requestHeaderTimeout)), help: "time a client has to send request headers"),
            .init(
                "http.request_body_timeout_seconds", .integer(1...3_600),
                default: .integer(seconds(d.requestBodyTimeout)), help: "time a client has to send a request body"),
            .init(
                "http.max_uri_bytes", .integer(256...1_048_576), default: .integer(d.maxURIBytes),
                help: "longest path and query; longer ones are answered 414"),
            .init(
                "http.max_query_parameters", .integer(1...10_000), default: .integer(d.maxQueryParameters),
                help: "most query parameters; more are answered 414"),
            .init(
                "http.max_header_bytes", .integer(1_024...1_048_576), default: .integer(d.maxHeaderBytes),
                help: "most header bytes; more are answered 431"),
            .init(
                "http.connection_memory_bytes", .integer(16_384...67_108_864),
                default: .integer(d.connectionMemoryBytes),
                help: "libmicrohttpd's memory per connection; at least 2 x (max_uri_bytes + max_header_bytes) "
                    + "+ 64 x max_query_parameters"),
        ]
    }()

    private static let tracking: [SettingKey] = {
        let t = TrackingConfiguration()
        let i = t.ingest
        return [
            .init(
                "tracking.ingest.max_accuracy_m", .number(1...100_000), default: .number(i.maxAccuracyMeters),
                help: "fixes with a larger accuracy radius are dropped"),
            .init(
                "tracking.ingest.max_speed_m_per_s", .number(1...1_000), default: .number(i.maxSpeedMetersPerSecond),
                help: "a fix needing a faster speed from the last one is dropped"),
            .init(
                "tracking.ingest.future_tolerance_ms", .integer(0...3_600_000),
                default: .integer(Int(i.futureToleranceMilliseconds)),
                help: "how far ahead of the server's clock a fix's time may be"),
            .init(
                "tracking.ingest.rate_limit_burst", .number(1...10_000), default: .number(i.rateLimitBurst),
                help: "location batches a driver may send in a burst (then 429 with Retry-After)"),
            .init(
                "tracking.ingest.rate_limit_batches_per_second", .number(0.001...10_000),
                default: .number(i.rateLimitBatchesPerSecond),
                help: "location batches per second a driver may send over time"),
            .init(
                "tracking.index.cell_size_m", .number(10...100_000), default: .number(t.index.cellSizeMeters),
                help: "edge of the nearest-driver grid's cells"),
            .init(
                "tracking.index.max_age_ms", .integer(1_000...86_400_000),
                default: .integer(Int(t.index.maxAgeMilliseconds)),
                help: "a driver whose last fix is older is not offered trips or shown nearby"),
            .init(
                "tracking.max_fixes_per_batch", .integer(1...10_000), default: .integer(t.maxFixesPerBatch),
                help: "most fixes in one POST /v1/driver/locations (more: 413)"),
            .init(
                "tracking.tick_ms", .integer(10...60_000), default: .integer(milliseconds(t.tickInterval)),
                help: "how often fleet streams get the positions published since the last tick"),
            .init(
                "tracking.heartbeat_seconds", .integer(1...3_600), default: .integer(seconds(t.heartbeatInterval)),
                help: "how often fleet streams get a heartbeat comment"),
            .init(
                "tracking.stream_buffer_capacity", .integer(16...1_000_000), default: .integer(t.streamBufferCapacity),
                help: "events buffered per fleet-stream client before its oldest are dropped"),
            .init(
                "tracking.replay_capacity", .integer(1...10_000_000), default: .integer(t.replayCapacity),
                help: "events kept for Last-Event-ID resumption"),
            .init(
                "tracking.history.queue_capacity", .integer(1...10_000_000), default: .integer(t.historyQueueCapacity),
                help: "positions queued for the history writer before ingest waits"),
            .init(
                "tracking.history.batch_size", .integer(1...1_000_000), default: .integer(t.historyBatchSize),
                help: "positions per history transaction"),
            .init(
                "tracking.history.linger_ms", .integer(0...60_000), default: .integer(t.historyLingerMilliseconds),
                help: "how long the history writer waits for a full batch (a crash can lose this much more trail)"),
            .init(
                "tracking.trail_limit", .integer(1...1_000_000), default: .integer(t.trailLimit),
                help: "most points in one trail answer"),
        ]
    }()

    private static let dispatch: [SettingKey] = {
        let d = DispatchConfiguration()
        return [
            .init(
                "dispatch.offer_seconds", .integer(1...600), default: .integer(d.offerSeconds),
                help: "how long one batch of offers stays open"),
            .init(
                "dispatch.batch_size", .integer(1...50), default: .integer(d.batchSize),
                help: "drivers one batch offers the trip to at once"),
            .init(
                "dispatch.search_radii_m", .growingNumbers(100...200_000, maxCount: 20),
                default: .numbers(d.searchRadiiMeters),
                help: "search radius of batch 1, 2, ... (the last repeats); comma-separated in the environment"),
            .init(
                "dispatch.maximum_batches", .integer(1...100), default: .integer(d.maximumBatches),
                help: "batches without an accept before the trip is no_driver_found"),
            .init(
                "dispatch.candidates_per_search", .integer(1...1_000), default: .integer(d.candidatesPerSearch),
                help: "nearest drivers by air that one search ranks by road ETA"),
        ]
    }()

    private static let trip: [SettingKey] = {
        let t = TripTimeouts()
        let c = DispatchCoordinator.Configuration()
        return [
            .init(
                "trip.request_expiry_seconds", .integer(1...86_400), default: .integer(t.requestExpirySeconds),
                help: "how long a booking may wait in requested before it expires"),
            .init(
                "trip.dispatch_seconds", .integer(1...86_400), default: .integer(t.dispatchSeconds),
                help: "how long dispatch may look for a driver before no_driver_found"),
            .init(
                "trip.no_show_seconds", .integer(1...86_400), default: .integer(t.noShowSeconds),
                help: "how long a driver waits at the pickup before a no_show is allowed"),
            .init(
                "trip.pickup_overdue_seconds", .integer(30...86_400), default: .integer(t.pickupOverdueSeconds),
                flag: "pickup-overdue",
                help: "seconds past the promised pickup before an accepted trip whose driver has not arrived is "
                    + "re-dispatched"),
            .init(
                "trip.arrival_radius_m", .number(10...5_000), default: .number(c.arrivalMaxDistanceMeters),
                flag: "arrival-radius", help: "how near the pickup a driver must be to mark arrival"),
            .init(
                "trip.arrival_fix_max_age_seconds", .integer(5...3_600), default: .integer(c.arrivalFixMaxAgeSeconds),
                flag: "arrival-fix-age", help: "how fresh that driver's position must be"),
        ]
    }()

    private static let store: [SettingKey] = {
        let s = SQLiteStore.Configuration()
        let p = PostgresStore.Configuration(conninfo: "")
        return [
            .init(
                "store.readers", .integer(1...64), default: .integer(s.readers), help: "read-only SQLite connections"),
            .init(
                "store.maximum_batch", .integer(1...100_000), default: .integer(s.maximumBatch),
                help: "most writes committed in one transaction (group commit)"),
            .init(
                "store.token_cache_capacity", .integer(0...10_000_000), default: .integer(s.tokenCacheCapacity),
                help: "resolved bearer tokens kept in memory; 0 turns the cache off"),
            .init(
                "store.token_cache_ms", .integer(0...3_600_000), default: .integer(Int(s.tokenCacheMilliseconds)),
                help: "how long a resolved token is trusted without reading the store again (the longest a token "
                    + "revoked by another process keeps working here)"),
            .init(
                "store.wal_frame_limit", .integer(1_000...10_000_000), default: .integer(s.walFrameLimit),
                help: "WAL length in 4 KiB frames past which the writer waits for the checkpoint"),
            .init(
                "store.postgres_url", .optionalString, default: .null, environment: "CAB_POSTGRES_URL",
                flag: "postgres",
                help: "keep accounts, bookings, dispatch state, links and trails in PostgreSQL at this libpq URL or "
                    + "conninfo (several hosts with target_session_attrs=read-write find the primary); null keeps them "
                    + "in the data directory's SQLite file"),
            .init(
                "store.postgres_connections", .integer(1...256), default: .integer(p.connections),
                help: "PostgreSQL connections this node holds"),
            .init(
                "store.postgres_writers", .integer(1...64), default: .integer(p.writers),
                help: "PostgreSQL group-commit writers (each commits up to 48 callers' writes at once)"),
            .init(
                "store.postgres_token_cache_ms", .integer(0...60_000), default: .integer(Int(p.tokenCacheMilliseconds)),
                help: "PostgreSQL: how long a resolved token is trusted without reading the database again (the "
                    + "longest a token revoked on another node keeps working on this one); 0 reads it every request"),
            .init(
                "store.location_retention_days", .integer(0...36_500), default: .integer(0),
                help: "PostgreSQL: whole days of location history kept (older day partitions are dropped); 0 keeps all"),
        ]
    }()

    /// Several nodes sharing live state over Redis (issue 17, `ServeSettings+Components.swift`'s `cluster`).
    private static let cluster: [SettingKey] = [
        .init(
            "cluster.redis_url", .optionalString, default: .null, environment: "CAB_REDIS_URL", flag: "redis",
            help: "share live positions and the ingest rate limit with the other nodes over Redis at this URL "
                + "(redis://host[:port][/db] or unix:///path[?db=N]); null runs this node on its own"),
        .init(
            "cluster.node_id", .optionalString, default: .null, flag: "node-id",
            help: "this node's id in the cluster, unique among the nodes (letters, digits, '-', '_', at most 64); "
                + "null takes the host name and the process id"),
        .init(
            "cluster.city", .string(choices: []), default: .string("default"),
            help: "the city the nodes serve together: the Redis keys are cab:{city}:... (letters, digits, '-', '_')"),
    ]

    private static func seconds(_ d: Duration?) -> Int { Int(d?.components.seconds ?? 0) }
    private static func milliseconds(_ d: Duration?) -> Int {
        guard let d else { return 0 }
        return Int(d.components.seconds * 1_000 + d.components.attoseconds / 1_000_000_000_000_000)
    }
}
