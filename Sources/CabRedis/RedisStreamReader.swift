import Foundation
import Synchronization

/// One entry of a Redis stream.
public struct RedisStreamEntry: Sendable, Equatable {
    /// The stream's key.
    public let stream: String
    /// The entry's id (`1700000000000-0`).
    public let id: String
    /// Field/value pairs, in order.
    public let fields: [(String, [UInt8])]

    public static func == (a: Self, b: Self) -> Bool {
        a.stream == b.stream && a.id == b.id && a.fields.elementsEqual(b.fields, by: { $0.0 == $1.0 && $0.1 == $1.1 })
    }

    /// The value of `field` as text, nil when absent.
    public func value(_ field: String) -> String? {
        fields.first { $0.0 == field }.map { String(decoding: $0.1, as: UTF8.self) }
    }
}

/// Reads streams on a thread of its own (`XREAD BLOCK`), handing each batch to `handler` in order, and
/// reconnects by itself: after a broken connection it connects again (with a growing pause, at most 1 s) and
/// goes on from the last id it delivered, so no entry the server still holds is missed or delivered twice. A
/// restarted server (new `run_id`) is reported through `onEvent`.
public final class RedisStreamReader: Sendable {
    /// Settings.
    public struct Configuration: Sendable {
        /// How long one `XREAD` blocks on the server; also how long `stop()` may wait.
        public var blockMilliseconds: Int = 250
        /// At most this many entries per stream and read.
        public var batchSize: Int = 512
        /// Connect timeout.
        public var connectTimeoutMilliseconds: Int = 1_000

        /// Creates a configuration.
        public init(blockMilliseconds: Int = 250, batchSize: Int = 512, connectTimeoutMilliseconds: Int = 1_000) {
            self.blockMilliseconds = blockMilliseconds
            self.batchSize = batchSize
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        }
    }

    private let endpoint: RedisEndpoint
    private let configuration: Configuration
    private let handler: @Sendable ([RedisStreamEntry]) -> Void
    private let tracker: RunTracker
    /// Each stream's last delivered id, in a fixed key order.
    private let positions: Mutex<[(key: String, id: String)]>
    private let stopping = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)

    /// A reader of `streams` (key → the id to read after; `$` for only new entries, `0` for all).
    public init(
        _ endpoint: RedisEndpoint, streams: [(key: String, after: String)],
        configuration: Configuration = Configuration(),
        onEvent: @escaping @Sendable (RedisEvent) -> Void = { _ in },
        handler: @escaping @Sendable ([RedisStreamEntry]) -> Void
    ) {
        precondition(!streams.isEmpty, "a reader needs at least one stream")
        self.endpoint = endpoint
        self.configuration = configuration
        self.handler = handler
        tracker = RunTracker(onEvent: onEvent)
        positions = Mutex(streams.map { (key: $0.key, id: $0.after) })
    }

    /// Starts the reading thread.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "redis-stream-reader"
        thread.start()
    }

    /// Asks the thread to stop and waits (at most about one block time plus a connect timeout).
    public func stop() {
        stopping.store(true, ordering: .releasing)
        while !finished.withLock({ $0 }) { usleep(5_000) }
    }

    /// The last id delivered per stream.
    public var lastIDs: [String: String] {
        positions.withLock { Dictionary($0.map { ($0.key, $0.id) }, uniquingKeysWith: { $1 }) }
    }

    private func run() {
        defer { finished.withLock { $0 = true } }
        var connection: RedisConnection?
        var pauseMilliseconds = 25
        while !stopping.load(ordering: .acquiring) {
            do {
                if connection == nil {
                    let fresh = try RedisConnection(
                        endpoint, timeoutMilliseconds: configuration.connectTimeoutMilliseconds)
                    let runID = try RedisClient.runID(of: fresh)
                    let previous = tracker.current
                    tracker.connected(runID)
                    if let previous, previous != runID {
                        // A restarted server without persistence has empty streams whose ids start again from
                        // 0-0: reading after the old ids would skip everything it gets from now on.
                        positions.withLock { p in for i in p.indices { p[i].id = "0-0" } }
                    }
                    resolveNewOnlyPositions(fresh)
                    connection = fresh
                    pauseMilliseconds = 25
                }
                // `connection` was set just above when it was nil.
                let c = connection!
                let current = positions.withLock { $0 }
                var arguments: [any RedisArgument] = [
                    "XREAD", "COUNT", configuration.batchSize, "BLOCK", configuration.blockMilliseconds, "STREAMS",
                ]
                arguments += current.map(\.key) as [any RedisArgument]
                arguments += current.map(\.id) as [any RedisArgument]
                let reply = try c.command(arguments)
                if case .error(let e) = reply { throw RedisError(code: .server, message: e) }
                let entries = Self.entries(of: reply)
                if !entries.isEmpty {
                    positions.withLock { p in
                        for e in entries { if let i = p.firstIndex(where: { $0.key == e.stream }) { p[i].id = e.id } }
                    }
                    handler(entries)
                }
            } catch {
                connection = nil
                tracker.disconnected((error as? RedisError)?.message ?? "\(error)")
                usleep(UInt32(pauseMilliseconds * 1000))
                pauseMilliseconds = min(1_000, pauseMilliseconds * 2)
            }
        }
    }

    /// `$` means "after the newest entry when reading starts"; it is pinned to a real id at the first connect,
    /// so that a reconnect does not skip what arrived while the connection was down.
    private func resolveNewOnlyPositions(_ c: RedisConnection) {
        let keys = positions.withLock { $0.filter { $0.id == "$" }.map(\.key) }
        for key in keys {
            let reply = try? c.command("XREVRANGE", key, "+", "-", "COUNT", 1)
            let newest = reply?.elements.first?.elements.first?.string ?? "0-0"
            positions.withLock { p in
                if let i = p.firstIndex(where: { $0.key == key }), p[i].id == "$" { p[i].id = newest }
            }
        }
    }

    /// The entries of an `XREAD` reply: `[[key, [[id, [f, v, ...]], ...]], ...]`, or nil on a timeout.
    static func entries(of reply: RedisReply) -> [RedisStreamEntry] {
        var out: [RedisStreamEntry] = []
        for stream in reply.elements {
            let parts = stream.elements
            guard parts.count == 2, let key = parts[0].string else { continue }
            for item in parts[1].elements {
                let pair = item.elements
                guard pair.count == 2, let id = pair[0].string else { continue }
                var fields: [(String, [UInt8])] = []
                let flat = pair[1].elements
                var i = 0
                while i + 1 < flat.count {
                    if let f = flat[i].string, case .bulk(let v) = flat[i + 1] { fields.append((f, v)) }
                    i += 2
                }
                out.append(RedisStreamEntry(stream: key, id: id, fields: fields))
            }
        }
        return out
    }
}
