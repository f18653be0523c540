import CabCore
import CabPostgres
import Foundation

@testable import CabStore

/// A PostgreSQL store on a fresh database with a rider, drivers and bookings in chosen shards, and a raw
/// connection for checking and breaking rows directly: for the lease, fenced-write and checker tests.
final class DispatchFixture {
    let store: PostgresStore
    let rider: RiderID
    let conninfo: String
    /// A connection of the test's own, outside the store.
    let sql: PostgresConnection
    private var bookingCount = 0

    init() throws {
        conninfo = try SharedPostgres.newDatabase()
        store = try PostgresStore(.init(conninfo: conninfo, connections: 4, writers: 2))
        sql = try PostgresConnection(conninfo: conninfo)
        rider = .random()
        try store.createRider(Rider(id: rider, name: "Rider", createdAt: Stores.start), tokenHash: Stores.randomHash())
    }

    deinit { store.close() }

    func driver() throws -> DriverID {
        let id = DriverID.random()
        try store.createDriver(
            Driver(id: id, name: "Aino", vehicle: "white Škoda Octavia", plate: "ABC-123", createdAt: Stores.start),
            tokenHash: Stores.randomHash())
        return id
    }

    /// A booking stored in `shard` (any shard when nil).
    func booking(in shard: DispatchShard? = nil) throws -> BookingID {
        bookingCount += 1
        var booking = Stores.booking(for: rider, at: bookingCount)
        while let shard, DispatchShard(of: booking.id) != shard { booking.id = .random() }
        // In `dispatching`, as dispatch stores a new booking: the store offers nothing else.
        booking.status = .dispatching
        let dispatch = TripTransitionRecord(
            bookingID: booking.id, from: .requested, to: .dispatching, event: .dispatch, actor: .system,
            at: booking.createdAt)
        return try store.create(booking, idempotencyKey: nil, transitions: [dispatch]).booking.id
    }

    /// Makes `shard`'s lease look expired on the database's clock (as if its time had run out).
    func expireLease(of shard: DispatchShard) throws {
        try sql.query(
            "UPDATE dispatch_shard_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE shard = $1",
            [shard.index])
    }

    /// Rows of `table` (a literal of the tests).
    func count(_ table: String, where condition: String = "true") throws -> Int {
        try sql.query("SELECT count(*) FROM \(table) WHERE \(condition)").first?.int(0) ?? -1
    }
}
