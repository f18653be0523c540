import CabCore
import CabRedis
import Foundation
import Synchronization

/// This node's view of the whole fleet as the other nodes publish it: starts warm from the `latest` hash, then
/// follows the positions stream (from the entry that was newest when the hash was read, so nothing in between
/// is missed), and hands each batch to `onPositions`, where the node applies them to its in-process fleet
/// (newest wins there). Its own node's entries are skipped there: it applied them when it accepted them. Every
/// entry, its own included, also goes to `onFleetEvents` as numbered fleet events (the ids `cab_publish` gave),
/// the same on every node, so that a fleet stream resumes on any node.
///
/// A restart of Redis (an empty server) is noticed by the stream reader, which reads the new stream from its
/// start; the publishers repopulate it as positions come.
public final class FleetReplica: Sendable {
    private let endpoint: RedisEndpoint
    private let keys: ClusterKeys
    private let node: String
    private let onPositions: @Sendable ([ReplicatedPosition]) -> Void
    private let onEvent: @Sendable (RedisEvent) -> Void
    private let onFleetEvents: @Sendable ([NumberedPosition]) -> Void
    /// Stream entries read before following, to fill a new node's replay window (`Last-Event-ID` from a client
    /// that was on another node).
    public let replaySeedEntries: Int
    private let reader = Mutex<RedisStreamReader?>(nil)
    private let received = Atomic<Int>(0)
    private let answered = Atomic<Bool>(false)

    /// A replica for `node` of `keys`' city.
    public init(
        endpoint: RedisEndpoint, keys: ClusterKeys, node: String,
        replaySeedEntries: Int = 64, onEvent: @escaping @Sendable (RedisEvent) -> Void = { _ in },
        onFleetEvents: @escaping @Sendable ([NumberedPosition]) -> Void = { _ in },
        onPositions: @escaping @Sendable ([ReplicatedPosition]) -> Void
    ) {
        self.replaySeedEntries = replaySeedEntries
        self.onFleetEvents = onFleetEvents
        self.endpoint = endpoint
        self.keys = keys
        self.node = node
        self.onEvent = onEvent
        self.onPositions = onPositions
    }

    /// True when Redis answered the warm start (`start()`).
    public var warmStartAnswered: Bool { answered.load(ordering: .acquiring) }

    /// Positions handed to `onPositions` so far (the warm start included).
    public var receivedCount: Int { received.load(ordering: .relaxed) }

    /// Loads the newest position of every driver, then starts following the stream. With Redis away it starts
    /// cold and follows the stream from its start once Redis answers.
    /// - Returns: how many positions the warm start loaded (0 when cold).
    @discardableResult
    public func start() -> Int {
        var after = "0-0"
        var loaded = 0
        if let connection = try? RedisConnection(endpoint, timeoutMilliseconds: 1_000) {
            if let newest = try? connection.command(
                "XREVRANGE", keys.positions, "+", "-", "COUNT", replaySeedEntries + 1),
                let warm = try? connection.command("HGETALL", keys.latest)
            {
                // Follow from just after the oldest entry read, so that the newest `replaySeedEntries` come again
                // as events (their positions are older than the warm start's, and lose to it).
                let entries = newest.elements
                after = entries.count > replaySeedEntries ? entries.last?.elements.first?.string ?? "0-0" : "0-0"
                let flat = warm.elements
                var positions: [ReplicatedPosition] = []
                positions.reserveCapacity(flat.count / 2)
                var i = 1
                while i < flat.count {
                    if let line = flat[i].string, let p = ReplicatedPosition(line: line) { positions.append(p) }
                    i += 2
                }
                loaded = positions.count
                answered.store(true, ordering: .releasing)
                deliver(positions)
            }
        }
        let node = self.node
        let stream = RedisStreamReader(endpoint, streams: [(key: keys.positions, after: after)], onEvent: onEvent) {
            [weak self] entries in
            var positions: [ReplicatedPosition] = []
            var events: [NumberedPosition] = []
            for entry in entries {
                guard let text = entry.value("p") else { continue }
                let lines = ReplicatedPosition.lines(inBatch: text)  // parsed once, for both uses
                if entry.value("node") != node { positions += lines.compactMap { $0 } }
                // Numbered by `cab_publish`: the lines in order from `first` (a malformed line keeps its id unused).
                if let first = entry.value("first").flatMap({ UInt64($0) }) {
                    events += NumberedPosition.numbering(lines, from: first)
                }
            }
            self?.deliver(positions)
            if !events.isEmpty { self?.onFleetEvents(events) }
        }
        reader.withLock { $0 = stream }
        stream.start()
        return loaded
    }

    /// Stops following the stream.
    public func stop() {
        reader.takeAndStop()
    }

    private func deliver(_ positions: [ReplicatedPosition]) {
        guard !positions.isEmpty else { return }
        received.add(positions.count, ordering: .relaxed)
        onPositions(positions)
    }
}
