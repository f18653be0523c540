import CabAPI
import CabCore
import CabDispatch
import CabHTTP
import CabRedis
import CabStore
import CabTracking
import Foundation
import Logging

/// The mapping from the settings to each component's own configuration struct: the only place that knows both.
extension ServeSettings {
    /// The data directory.
    var dataDirectory: String { string("data_dir") ?? "data/cab" }

    /// The log level in force.
    var logLevel: Logger.Level { string("log_level").flatMap(Logger.Level.init(rawValue:)) ?? .info }

    /// `CabHTTP`'s server settings.
    var http: HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: string("http.host") ?? "127.0.0.1", port: integer("http.port"),
            workerThreads: integer("http.threads"),
            maxBodyBytes: integer("http.max_body_bytes"),
            connectionTimeoutSeconds: integer("http.connection_timeout_seconds"),
            maxConnections: integer("http.max_connections"),
            shutdownGracePeriod: .seconds(integer("http.shutdown_grace_seconds")),
            maxConnectionsPerAddress: integer("http.max_connections_per_address"),
            requestHeaderTimeout: .seconds(integer("http.request_header_timeout_seconds")),
            requestBodyTimeout: .seconds(integer("http.request_body_timeout_seconds")),
            maxURIBytes: integer("http.max_uri_bytes"), maxQueryParameters: integer("http.max_query_parameters"),
            maxHeaderBytes: integer("http.max_header_bytes"),
            connectionMemoryBytes: integer("http.connection_memory_bytes"),
            handlerThreads: integer("http.handler_threads"), handlerQueueLength: integer("http.handler_queue_length"))
    }

    /// Live tracking's settings.
    var tracking: TrackingConfiguration {
        let ingest = IngestConfiguration(
            maxAccuracyMeters: number("tracking.ingest.max_accuracy_m"),
            maxSpeedMetersPerSecond: number("tracking.ingest.max_speed_m_per_s"),
            futureToleranceMilliseconds: Int64(integer("tracking.ingest.future_tolerance_ms")),
            rateLimitBurst: number("tracking.ingest.rate_limit_burst"),
            rateLimitBatchesPerSecond: number("tracking.ingest.rate_limit_batches_per_second"))
        var index = TrackingConfiguration().index
        index.cellSizeMeters = number("tracking.index.cell_size_m")
        index.maxAgeMilliseconds = Int64(integer("tracking.index.max_age_ms"))
        return TrackingConfiguration(
            ingest: ingest, index: index, maxFixesPerBatch: integer("tracking.max_fixes_per_batch"),
            tickInterval: .milliseconds(integer("tracking.tick_ms")),
            heartbeatInterval: .seconds(integer("tracking.heartbeat_seconds")),
            streamBufferCapacity: integer("tracking.stream_buffer_capacity"),
            replayCapacity: integer("tracking.replay_capacity"),
            historyQueueCapacity: integer("tracking.history.queue_capacity"),
            historyBatchSize: integer("tracking.history.batch_size"),
            historyLingerMilliseconds: integer("tracking.history.linger_ms"),
            trailLimit: integer("tracking.trail_limit"))
    }

    /// Dispatch and the trip lifecycle's settings (the coordinator's, with the transition table's timeouts).
    var dispatch: DispatchCoordinator.Configuration {
        let offerSeconds = integer("dispatch.offer_seconds")
        let timeouts = TripTimeouts(
            offerSeconds: offerSeconds, requestExpirySeconds: integer("trip.request_expiry_seconds"),
            dispatchSeconds: integer("trip.dispatch_seconds"), noShowSeconds: integer("trip.no_show_seconds"),
            pickupOverdueSeconds: integer("trip.pickup_overdue_seconds"))
        let batches = DispatchConfiguration(
            offerSeconds: offerSeconds, batchSize: integer("dispatch.batch_size"),
            searchRadiiMeters: numbers("dispatch.search_radii_m"), maximumBatches: integer("dispatch.maximum_batches"),
            candidatesPerSearch: integer("dispatch.candidates_per_search"))
        return DispatchCoordinator.Configuration(
            dispatch: batches, table: TripTransitionTable(timeouts: timeouts),
            arrivalFixMaxAgeSeconds: integer("trip.arrival_fix_max_age_seconds"),
            arrivalMaxDistanceMeters: number("trip.arrival_radius_m"))
    }

    /// The SQLite store's settings.
    var store: SQLiteStore.Configuration {
        SQLiteStore.Configuration(
            readers: integer("store.readers"), maximumBatch: integer("store.maximum_batch"),
            tokenCacheCapacity: integer("store.token_cache_capacity"),
            tokenCacheMilliseconds: Int64(integer("store.token_cache_ms")),
            walFrameLimit: integer("store.wal_frame_limit"))
    }

    /// The PostgreSQL store's settings, when `store.postgres_url` is set.
    var postgres: PostgresStore.Configuration? {
        guard let url = string("store.postgres_url") else { return nil }
        let retention = integer("store.location_retention_days")
        return PostgresStore.Configuration(
            conninfo: url, connections: integer("store.postgres_connections"),
            writers: integer("store.postgres_writers"),
            locationRetentionDays: retention == 0 ? nil : retention,
            tokenCacheMilliseconds: Int64(integer("store.postgres_token_cache_ms")))
    }
}

/// What `cab serve --redis` runs with.
struct ClusterSettings: Sendable {
    var endpoint: RedisEndpoint
    var node: String
    var city: String
}

extension ServeSettings {
    /// The cluster link's settings, when `cluster.redis_url` is set.
    var cluster: ClusterSettings? {
        guard let url = string("cluster.redis_url"), let endpoint = RedisEndpoint(url: url) else { return nil }
        let host = ProcessInfo.processInfo.hostName.filter(Self.isNodeIDCharacter).prefix(40)
        let node = string("cluster.node_id") ?? "\(host.isEmpty ? "node" : String(host))-\(getpid())"
        return ClusterSettings(endpoint: endpoint, node: node, city: string("cluster.city") ?? "default")
    }

    /// Letters, digits, `-` and `_` (node ids and city names).
    static func isNodeIDCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")
    }

    /// `cluster.*` read together: a Redis URL of either form, a node id and a city of safe characters.
    func validateCluster() throws(ConfigurationError) {
        if let url = string("cluster.redis_url"), RedisEndpoint(url: url) == nil {
            throw ConfigurationError(
                message: "cluster.redis_url: must be redis://host[:port][/db] or unix:///path[?db=N], not '\(url)' "
                    + "(\(source(of: "cluster.redis_url").label))")
        }
        if let node = string("cluster.node_id"), node.count > 64 || !node.allSatisfy(Self.isNodeIDCharacter) {
            throw ConfigurationError(
                message: "cluster.node_id: must be 1 to 64 letters, digits, '-' or '_', not '\(node)' "
                    + "(\(source(of: "cluster.node_id").label))")
        }
        let city = string("cluster.city") ?? ""
        if city.count > 64 || !city.allSatisfy(Self.isNodeIDCharacter) {
            throw ConfigurationError(
                message: "cluster.city: must be 1 to 64 letters, digits, '-' or '_', not '\(city)' "
                    + "(\(source(of: "cluster.city").label))")
        }
    }
}
