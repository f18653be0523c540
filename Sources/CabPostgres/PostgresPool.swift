import Dispatch
import Synchronization

/// A bounded pool of connections to one PostgreSQL (or a list of hosts in one libpq string), handed to one
/// thread at a time. Connections open lazily up to `size`; one that lost its server is dropped and the next
/// checkout connects again, so the pool recovers by itself after a restart or a failover.
public final class PostgresPool: Sendable {
    /// How to connect and how many connections to keep.
    public struct Configuration: Sendable {
        /// A libpq connection string or URL.
        public var conninfo: String
        /// At most this many connections open at once.
        public var size: Int
        /// How long a checkout waits for a free connection before failing with `poolTimeout`.
        public var checkoutTimeoutMilliseconds: Int
        /// Server settings every connection of the pool runs with (`set_config` after each connect), e.g.
        /// `idle_in_transaction_session_timeout`.
        public var sessionSettings: [String: String]
        /// Connections opened when the pool is made (at most `size`): a node's first requests after a start do
        /// not each wait for a connection to be set up.
        public var openAtStart: Int

        /// Creates a configuration.
        public init(
            conninfo: String, size: Int = 8, checkoutTimeoutMilliseconds: Int = 5_000,
            sessionSettings: [String: String] = [:], openAtStart: Int = 1
        ) {
            precondition(size >= 1, "a pool needs at least one connection")
            self.conninfo = conninfo
            self.size = size
            self.checkoutTimeoutMilliseconds = checkoutTimeoutMilliseconds
            self.sessionSettings = sessionSettings
            self.openAtStart = max(1, min(openAtStart, size))
        }
    }

    /// Whether the last attempt to reach the server worked.
    public enum Health: Sendable, Equatable {
        /// Connected and answering.
        case available
        /// Not reachable (or not taking work); the error says why.
        case unavailable(String)
    }

    /// The configuration.
    public let configuration: Configuration
    private let slots: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let health = Mutex<Health>(.available)
    private let onHealthChange: @Sendable (Health) -> Void

    /// Creates a pool and opens its first connection, so that a wrong password, role or database fails here
    /// (with `isConfigurationError`) rather than on the first request. `onHealthChange` hears every change
    /// between available and unavailable, once per change (to log it once).
    public init(
        _ configuration: Configuration, onHealthChange: @escaping @Sendable (Health) -> Void = { _ in }
    ) throws(PostgresError) {
        self.configuration = configuration
        slots = DispatchSemaphore(value: configuration.size)
        self.onHealthChange = onHealthChange
        for _ in 0..<configuration.openAtStart {
            let connection = try PostgresConnection(conninfo: configuration.conninfo)
            try Self.apply(configuration.sessionSettings, to: connection)
            idle.withLock { $0.append(connection) }
        }
    }

    /// Sets `settings` for the rest of `connection`'s session (a reset connection is a new session).
    private static func apply(_ settings: [String: String], to connection: PostgresConnection) throws(PostgresError) {
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            _ = try connection.query("SELECT set_config($1, $2, false)", [name, value])
        }
    }

    /// The last health seen.
    public var currentHealth: Health { health.withLock { $0 } }

    /// Runs `body` with a connection of its own (blocking until one is free, at most the checkout timeout).
    /// A connection whose server went away is dropped rather than returned.
    @discardableResult
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let deadline = DispatchTime.now() + .milliseconds(configuration.checkoutTimeoutMilliseconds)
        guard slots.wait(timeout: deadline) == .success else {
            throw PostgresError(
                code: .poolTimeout,
                message: "no database connection became free in \(configuration.checkoutTimeoutMilliseconds) ms")
        }
        defer { slots.signal() }
        let connection: PostgresConnection
        do {
            if let reused = idle.withLock({ $0.popLast() }) {
                if !reused.isConnected {
                    try reused.reset()
                    try Self.apply(configuration.sessionSettings, to: reused)
                }
                connection = reused
            } else {
                connection = try PostgresConnection(conninfo: configuration.conninfo)
                try Self.apply(configuration.sessionSettings, to: connection)
            }
        } catch {
            closeIdleConnections()
            note(.unavailable(error.message))
            throw error
        }
        do {
            let result = try body(connection)
            idle.withLock { $0.append(connection) }
            note(.available)
            return result
        } catch let error as PostgresError where error.isUnavailable || !connection.isConnected {
            // The server went away (or a standby took over): the idle connections are most likely dead too, and
            // libpq only finds out on their next use. Dropping them makes the next checkout connect afresh.
            closeIdleConnections()
            note(.unavailable(error.message))
            throw error  // the connection is dropped (not returned to `idle`)
        } catch {
            idle.withLock { $0.append(connection) }
            note(.available)
            throw error
        }
    }

    /// Forgets every idle connection (they close); the next checkouts connect anew.
    public func closeIdleConnections() { idle.withLock { $0.removeAll() } }

    private func note(_ new: Health) {
        let changed = health.withLock { h -> Bool in
            switch (h, new) {
            case (.available, .available), (.unavailable, .unavailable): return false
            default:
                h = new
                return true
            }
        }
        if changed { onHealthChange(new) }
    }
}
