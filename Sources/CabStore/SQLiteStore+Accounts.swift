import CabCore
import CabSQLite

extension SQLiteStore: AccountRepository {
    /// Stores a new rider and the hash of their token, durably.
    public func createRider(_ rider: Rider, tokenHash: TokenHash) throws {
        try writer.write { c in
            try c.run(
                "INSERT INTO riders (id, name, created_ms) VALUES (?, ?, ?)",
                [rider.id.rawValue, rider.name, rider.createdAt.millisecondsSinceEpoch])
            try Self.insertToken(tokenHash, for: .rider(rider.id), at: rider.createdAt, on: c)
        }
    }

    /// Stores a new driver and the hash of their token, durably.
    public func createDriver(_ driver: Driver, tokenHash: TokenHash) throws {
        try writer.write { c in
            try c.run(
                "INSERT INTO drivers (id, name, vehicle, plate, vehicle_type, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    driver.id.rawValue, driver.name, driver.vehicle, driver.plate, driver.vehicleType.rawValue,
                    driver.createdAt.millisecondsSinceEpoch,
                ])
            try Self.insertToken(tokenHash, for: .driver(driver.id), at: driver.createdAt, on: c)
        }
    }

    /// Stores a new dispatcher and the hash of their token, durably.
    public func createDispatcher(_ dispatcher: Dispatcher, tokenHash: TokenHash) throws {
        try writer.write { c in
            try c.run(
                "INSERT INTO dispatchers (id, name, created_ms) VALUES (?, ?, ?)",
                [dispatcher.id.rawValue, dispatcher.name, dispatcher.createdAt.millisecondsSinceEpoch])
            try Self.insertToken(tokenHash, for: .dispatcher(dispatcher.id), at: dispatcher.createdAt, on: c)
        }
    }

    /// Stores a token hash for `holder` (a rider, driver or dispatcher): the one INSERT every account and device
    /// key goes through, so the column filled always matches the holder's role.
    static func insertToken(_ hash: TokenHash, for holder: Principal, at time: Instant, on c: Connection) throws {
        precondition([.rider, .driver, .dispatcher].contains(holder.role), "tokens belong to accounts")
        try c.run(
            "INSERT INTO tokens (hash, rider_id, driver_id, dispatcher_id, created_ms) VALUES (?, ?, ?, ?, ?)",
            [
                hash.bytes, holder.riderID?.rawValue, holder.driverID?.rawValue, holder.dispatcherID?.rawValue,
                time.millisecondsSinceEpoch,
            ])
    }

    /// Who holds the token with this hash; nil when unknown or revoked. Live tokens are cached for
    /// `Configuration.tokenCacheMilliseconds` (`TokenCache`).
    public func principal(forTokenHash hash: TokenHash) throws -> Principal? {
        try tokens.principal(for: hash) {
            try readers.read { c in
                try c.first(
                    "SELECT rider_id, driver_id, dispatcher_id FROM tokens WHERE hash = ? AND revoked_ms IS NULL",
                    [hash.bytes]
                ) { row -> Principal in
                    if let id = row.optionalString(0).flatMap(RiderID.init) { return .rider(id) }
                    if let id = row.optionalString(1).flatMap(DriverID.init) { return .driver(id) }
                    if let id = row.optionalString(2).flatMap(DispatcherID.init) { return .dispatcher(id) }
                    throw StoreError(.corruptRow, "A token row names no valid account.")
                }
            }
        }
    }

    /// The principal `TokenCache` holds for this hash, without reading SQLite.
    public func cachedPrincipal(forTokenHash hash: TokenHash) -> Principal? { tokens.principal(for: hash) }

    /// Drops `hash` from `TokenCache` (another node revoked it).
    public func forgetCachedToken(_ hash: TokenHash) { tokens.forget(hash) }

    /// Revokes a token at `time` (the row stays, for audit); true when it existed and was live.
    public func revokeToken(_ hash: TokenHash, at time: Instant) throws -> Bool {
        defer { tokens.forget(hash) }  // after the commit, so no read that saw the token live is cached
        return try writer.write { c in
            try c.run(
                "UPDATE tokens SET revoked_ms = ? WHERE hash = ? AND revoked_ms IS NULL",
                [time.millisecondsSinceEpoch, hash.bytes]) > 0
        }
    }

    /// A rider by id.
    public func rider(_ id: RiderID) throws -> Rider? {
        try readers.read { c in
            try c.first("SELECT name, created_ms FROM riders WHERE id = ?", [id.rawValue]) { row in
                Rider(id: id, name: row.string(0), createdAt: Instant(millisecondsSinceEpoch: row.int64(1)))
            }
        }
    }

    /// A driver by id.
    public func driver(_ id: DriverID) throws -> Driver? {
        try readers.read { c in
            try c.first(
                "SELECT name, vehicle, plate, vehicle_type, created_ms FROM drivers WHERE id = ?", [id.rawValue]
            ) { row in
                guard let type = VehicleType(rawValue: row.string(3)) else {
                    throw StoreError(.corruptRow, "Driver \(id) has an unknown vehicle type.")
                }
                return Driver(
                    id: id, name: row.string(0), vehicle: row.string(1), plate: row.string(2), vehicleType: type,
                    createdAt: Instant(millisecondsSinceEpoch: row.int64(4)))
            }
        }
    }

    /// A dispatcher by id.
    public func dispatcher(_ id: DispatcherID) throws -> Dispatcher? {
        try readers.read { c in
            try c.first("SELECT name, created_ms FROM dispatchers WHERE id = ?", [id.rawValue]) { row in
                Dispatcher(id: id, name: row.string(0), createdAt: Instant(millisecondsSinceEpoch: row.int64(1)))
            }
        }
    }
}
