/// One of the 64 shards trips are spread over for dispatch across nodes (issue 18): each shard has one owner at a
/// time, holding a lease with a fence (`ShardLease`).
public struct DispatchShard: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// How many shards there are; fixed, as the stored `shard` columns (0-63) and the lease table's rows are.
    public static let count = 64

    /// Every shard, in order.
    public static let all: [DispatchShard] = (0..<count).map { DispatchShard($0) }

    /// The shard's number, 0 to 63.
    public let index: Int

    /// The shard numbered `index` (0 to 63).
    public init(_ index: Int) {
        precondition((0..<Self.count).contains(index), "a dispatch shard is numbered 0 to 63")
        self.index = index
    }

    /// The shard of `booking`: FNV-1a of the id's bytes modulo 64, the value the stores keep in every dispatch
    /// table's `shard` column (`PostgresStore.shard(of:)`).
    public init(of booking: BookingID) {
        var hash: UInt32 = 2_166_136_261
        for byte in booking.rawValue.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        self.init(Int(hash % UInt32(Self.count)))
    }

    /// Orders by number.
    public static func < (a: DispatchShard, b: DispatchShard) -> Bool { a.index < b.index }

    /// `shard 7`.
    public var description: String { "shard \(index)" }
}

/// A node of the city's cluster as dispatch names it (`cab serve --node-id`).
public struct ClusterNodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The id's text.
    public let rawValue: String

    /// Wraps a node id (non-empty).
    public init(_ rawValue: String) {
        precondition(!rawValue.isEmpty, "a node id is not empty")
        self.rawValue = rawValue
    }

    /// Orders by text: every node ranks the live nodes alike.
    public static func < (a: ClusterNodeID, b: ClusterNodeID) -> Bool { a.rawValue < b.rawValue }

    /// The text.
    public var description: String { rawValue }
}

/// What a write made on behalf of a shard's owner carries: the shard and the fence of the lease it holds. The
/// database refuses the write unless this is the shard's current fence and its lease has not expired.
public struct ShardFence: Hashable, Sendable, CustomStringConvertible {
    /// The shard.
    public var shard: DispatchShard
    /// The lease's fence: it grows on every takeover of the shard, never on a renewal.
    public var fence: Int64

    /// A fence of `shard`.
    public init(shard: DispatchShard, fence: Int64) {
        self.shard = shard
        self.fence = fence
    }

    /// `shard 7 fence 12`.
    public var description: String { "\(shard) fence \(fence)" }
}

/// A shard's lease as the database holds it.
public struct ShardLease: Hashable, Sendable {
    /// The shard and the fence of the lease.
    public var fence: ShardFence
    /// The node holding it; nil when it was never taken or was released.
    public var owner: ClusterNodeID?
    /// When the lease expires on the **database's** clock (nil for a shard never taken). For reports only: a
    /// node never compares it with its own clock (they may be seconds apart).
    public var expiresAt: Instant?
    /// True when the database found the lease held and unexpired at the moment it was read.
    public var isLive: Bool

    /// A lease.
    public init(fence: ShardFence, owner: ClusterNodeID?, expiresAt: Instant?, isLive: Bool) {
        self.fence = fence
        self.owner = owner
        self.expiresAt = expiresAt
        self.isLive = isLive
    }

    /// The shard.
    public var shard: DispatchShard { fence.shard }
}

extension CoreError.Code {
    /// A write carried a fence that is no longer the shard's current one, or whose lease expired: another node
    /// owns the shard now (or may, any moment). The writer must stop acting on the shard's trips.
    public static let staleFence = Self("stale_fence")
}

extension CoreError {
    /// The database refused a write made under `fence`.
    public static func staleFence(_ fence: ShardFence, writing what: String) -> CoreError {
        CoreError(
            .staleFence,
            "The database refused \(what) under \(fence): that fence is not the shard's current one, or its lease "
                + "has expired. This node no longer owns the shard.")
    }
}
