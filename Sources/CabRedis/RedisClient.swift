import Synchronization

/// What a client or reader saw happen to its server (each reported once, when it happens).
public enum RedisEvent: Sendable, Equatable {
    /// Connected; `runID` is the server's `run_id` (new on every server start).
    case connected(runID: String)
    /// The connection broke or could not be made.
    case disconnected(String)
    /// Connected again to a server that was restarted meanwhile (its `run_id` changed): whatever it held in
    /// memory only (a server without persistence) is gone.
    case restarted(previousRunID: String, runID: String)
}

/// A thread-safe Redis client over one connection that reconnects by itself: a call that finds the connection
/// broken connects again first; a call whose connection breaks mid-way throws (it is not sent twice, since a
/// command such as `XADD` is not idempotent) and the next call reconnects.
public final class RedisClient: Sendable {
    /// The server.
    public let endpoint: RedisEndpoint
    private let timeoutMilliseconds: Int
    private let connection = Mutex<RedisConnection?>(nil)
    private let tracker: RunTracker

    /// A client of `endpoint`; `onEvent` hears connects, disconnects and restarts. Connects lazily.
    public init(
        _ endpoint: RedisEndpoint, timeoutMilliseconds: Int = 2_000,
        onEvent: @escaping @Sendable (RedisEvent) -> Void = { _ in }
    ) {
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        tracker = RunTracker(onEvent: onEvent)
    }

    /// Runs one command (see `RedisConnection.command`).
    @discardableResult
    public func command(_ arguments: any RedisArgument...) throws(RedisError) -> RedisReply {
        try command(arguments)
    }

    /// Runs one command given as an array.
    @discardableResult
    public func command(_ arguments: [any RedisArgument]) throws(RedisError) -> RedisReply {
        try withConnection { (c) throws(RedisError) in try c.command(arguments) }
    }

    /// Runs a pipeline (see `RedisConnection.pipeline`).
    public func pipeline(_ commands: [[any RedisArgument]]) throws(RedisError) -> [RedisReply] {
        try withConnection { (c) throws(RedisError) in try c.pipeline(commands) }
    }

    /// Loads (or replaces) a library of server-side functions (`FUNCTION LOAD REPLACE`, Redis 7): Lua source
    /// starting `#!lua name=LIBRARY`. Functions live in the server's memory, so load again after a restart
    /// (`RedisEvent.restarted`) on a server without persistence.
    public func loadFunctions(_ source: String) throws(RedisError) {
        let reply = try command("FUNCTION", "LOAD", "REPLACE", source)
        if case .error(let e) = reply { throw RedisError(code: .server, message: e) }
    }

    /// Calls a server-side function (`FCALL name numkeys keys... args...`); a function's error is thrown.
    public func call(_ function: String, keys: [any RedisArgument], arguments: [any RedisArgument]) throws(RedisError)
        -> RedisReply
    {
        let reply = try command(["FCALL", function, keys.count] + keys + arguments)
        if case .error(let e) = reply { throw RedisError(code: .server, message: e) }
        return reply
    }

    /// The server's `run_id` as last seen, nil before the first connection.
    public var runID: String? { tracker.current }

    private func withConnection<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
        try connection.withLock { (slot) throws(RedisError) -> T in
            if slot == nil || slot?.isHealthy == false {
                slot = nil
                do throws(RedisError) {
                    let fresh = try RedisConnection(endpoint, timeoutMilliseconds: timeoutMilliseconds)
                    tracker.connected(try Self.runID(of: fresh))
                    slot = fresh
                } catch {
                    tracker.disconnected(error.message)
                    throw error
                }
            }
            // `slot` was set just above when it was nil.
            let c = slot!
            do throws(RedisError) {
                return try body(c)
            } catch {
                if error.isConnectionLost {
                    slot = nil
                    tracker.disconnected(error.message)
                }
                throw error
            }
        }
    }

    /// The `run_id` line of `INFO server`.
    static func runID(of connection: RedisConnection) throws(RedisError) -> String {
        let info = try connection.command("INFO", "server").string ?? ""
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("run_id:") {
            return String(line.dropFirst("run_id:".count))
        }
        throw RedisError(code: .unexpectedReply, message: "INFO server has no run_id")
    }
}

/// Remembers the server's `run_id` and reports each change of connection state once.
final class RunTracker: Sendable {
    private struct State {
        var runID: String?
        var connected = false
        var everDisconnected = false
    }

    private let state = Mutex(State())
    private let onEvent: @Sendable (RedisEvent) -> Void

    init(onEvent: @escaping @Sendable (RedisEvent) -> Void) { self.onEvent = onEvent }

    var current: String? { state.withLock { $0.runID } }

    func connected(_ runID: String) {
        let events: [RedisEvent] = state.withLock { s in
            var out: [RedisEvent] = []
            if let previous = s.runID, previous != runID {
                out.append(.restarted(previousRunID: previous, runID: runID))
            }
            if !s.connected { out.insert(.connected(runID: runID), at: 0) }
            s.runID = runID
            s.connected = true
            return out
        }
        for e in events { onEvent(e) }
    }

    func disconnected(_ why: String) {
        let changed = state.withLock { s -> Bool in
            // Report a lost connection, or the first failure of one never made; not every failed retry.
            let report = s.connected || (s.runID == nil && !s.everDisconnected)
            s.connected = false
            if report { s.everDisconnected = true }
            return report
        }
        if changed { onEvent(.disconnected(why)) }
    }
}
