import CabCore
import CabPostgres

extension PostgresStore: AccountRepository {
    /// Stores a new rider and the hash of their token, in one transaction.
    public func createRider(_ rider: Rider, tokenHash: TokenHash) throws {
        try write { c in
            try c.query(
                "INSERT INTO riders (id, name, created_ms) VALUES ($1, $2, $3)",
                [rider.id.rawValue, rider.name, rider.createdAt.millisecondsSinceEpoch])
            try Self.insertToken(tokenHash, for: .rider(rider.id), at: rider.createdAt, on: c)
        }
    }

    /// Stores a new driver and the hash of their token, in one transaction.
    public func createDriver(_ driver: Driver, tokenHash: TokenHash) throws {
        try write { c in
            try c.query(
                "INSERT INTO drivers (id, name, vehicle, plate, vehicle_type, created_ms) VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    driver.id.rawValue, driver.name, driver.vehicle, driver.plate, driver.vehicleType.rawValue,
                    driver.createdAt.millisecondsSinceEpoch,
                ])
            try Self.insertToken(tokenHash, for: .driver(driver.id), at: driver.createdAt, on: c)
        }
    }

    /// Stores a new dispatcher and the hash of their token, in one transaction.
    public func createDispatcher(_ dispatcher: Dispatcher, tokenHash: TokenHash) throws {
        try write { c in
            try c.query(
                "INSERT INTO dispatchers (id, name, created_ms) VALUES ($1, $2, $3)",
                [dispatcher.id.rawValue, dispatcher.name, dispatcher.createdAt.millisecondsSinceEpoch])
            try Self.insertToken(tokenHash, for: .dispatcher(dispatcher.id), at: dispatcher.createdAt, on: c)
        }
    }

    static func insertToken(_ hash: TokenHash, for holder: Principal, at time: Instant, on c: PostgresConnection) throws
    {
        precondition([.rider, .driver, .dispatcher].contains(holder.role), "tokens belong to accounts")
        try c.query(
            "INSERT INTO tokens (hash, rider_id, driver_id, dispatcher_id, created_ms) VALUES ($1, $2, $3, $4, $5)",
            [
                PostgresValue.bytes(hash.bytes), holder.riderID?.rawValue, holder.driverID?.rawValue,
                holder.dispatcherID?.rawValue, time.millisecondsSinceEpoch,
            ])
    }

    /// Who holds the token with this hash; nil when unknown or revoked. Live tokens are cached for
    /// `Configuration.tokenCacheMilliseconds` (one second by default), so a token revoked on another node stops
    /// working here within that time, and at once on the node that revoked it; unknown tokens always reach the
    /// database.
    public func principal(forTokenHash hash: TokenHash) throws -> Principal? {
        try tokens.principal(for: hash) {
            try read { c -> Principal? in
                guard
                    let row = try c.query(
                        "SELECT rider_id, driver_id, dispatcher_id FROM tokens WHERE hash = $1 AND revoked_ms IS NULL",
                        [PostgresValue.bytes(hash.bytes)]
                    ).first
                else { return nil }
                if let id = row.string(0).flatMap(RiderID.init) { return .rider(id) }
                if let id = row.string(1).flatMap(DriverID.init) { return .driver(id) }
                if let id = row.string(2).flatMap(DispatcherID.init) { return .dispatcher(id) }
                throw StoreError(.corruptRow, "A token row names no valid account.")
            }
        }
    }

    /// The principal `TokenCache` holds for this hash, without reading the database.
    public func cachedPrincipal(forTokenHash hash: TokenHash) -> Principal? { tokens.principal(for: hash) }

    /// Drops `hash` from `TokenCache` (another node revoked it).
    public func forgetCachedToken(_ hash: TokenHash) { tokens.forget(hash) }

    /// Revokes a token at `time`; true when it existed and was live.
    public func revokeToken(_ hash: TokenHash, at time: Instant) throws -> Bool {
        defer { tokens.forget(hash) }  // after the commit, so no read that saw the token live is cached
        return try write { c in
            try c.query(
                "UPDATE tokens SET revoked_ms = $1 WHERE hash = $2 AND revoked_ms IS NULL",
                [PostgresValue.int(time.millisecondsSinceEpoch), .bytes(hash.bytes)]
            ).affectedRows > 0
        }
    }

    /// A rider by id.
    public func rider(_ id: RiderID) throws -> Rider? {
        try read { c in
            try c.query("SELECT name, created_ms FROM riders WHERE id = $1", [id.rawValue]).first.map { row in
                Rider(
                    id: id, name: row.string(0) ?? "", createdAt: Instant(millisecondsSinceEpoch: try row.int64(1) ?? 0)
                )
            }
        }
    }

    /// A driver by id.
    public func driver(_ id: DriverID) throws -> Driver? {
        try read { c in
            guard
                let row = try c.query(
                    "SELECT name, vehicle, plate, vehicle_type, created_ms FROM drivers WHERE id = $1", [id.rawValue]
                ).first
            else { return nil }
            guard let type = row.string(3).flatMap(VehicleType.init(rawValue:)) else {
                throw StoreError(.corruptRow, "Driver \(id) has an unknown vehicle type.")
            }
            return Driver(
                id: id, name: row.string(0) ?? "", vehicle: row.string(1) ?? "", plate: row.string(2) ?? "",
                vehicleType: type, createdAt: Instant(millisecondsSinceEpoch: try row.int64(4) ?? 0))
        }
    }

    /// A dispatcher by id.
    public func dispatcher(_ id: DispatcherID) throws -> Dispatcher? {
        try read { c in
            try c.query("SELECT name, created_ms FROM dispatchers WHERE id = $1", [id.rawValue]).first.map { row in
                Dispatcher(
                    id: id, name: row.string(0) ?? "", createdAt: Instant(millisecondsSinceEpoch: try row.int64(1) ?? 0)
                )
            }
        }
    }
}
