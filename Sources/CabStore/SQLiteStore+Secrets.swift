import CabCore

extension SQLiteStore {
    /// The server secret `name`, made by `make` and stored durably the first time it is asked for; every later
    /// call (and every later process on this store) gets the same bytes. Two processes racing to make it both
    /// end with the one that was stored first.
    public func serverSecret(named name: String, at time: Instant, make: @escaping @Sendable () throws -> [UInt8])
        throws -> [UInt8]
    {
        if let stored = try readers.read({ c in
            try c.first("SELECT value FROM server_secrets WHERE name = ?", [name]) { $0.blob(0) }
        }) {
            return stored
        }
        let fresh = try make()
        return try writer.write { c in
            try c.run(
                "INSERT OR IGNORE INTO server_secrets (name, value, created_ms) VALUES (?, ?, ?)",
                [name, fresh, time.millisecondsSinceEpoch])
            // INSERT OR IGNORE kept an earlier value if there was one: read back what is stored.
            return try c.first("SELECT value FROM server_secrets WHERE name = ?", [name]) { $0.blob(0) } ?? fresh
        }
    }
}
