import CabCore

extension SQLiteStore {
    /// Stores the hash of an extra secret for `driver` (a tracking device's key), durably; it resolves to the
    /// driver through `principal(forTokenHash:)` and is revoked with `revokeToken`.
    ///
    /// The API hashes device keys with a domain prefix of their own, so a device key never works as a bearer
    /// token and a bearer token never works as a device key.
    public func addCredential(_ hash: TokenHash, for driver: DriverID, at time: Instant) throws {
        _ = try writer.write { c in
            try Self.insertToken(hash, for: .driver(driver), at: time, on: c)
        }
    }
}
