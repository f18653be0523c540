import CabCore
import CabGeo
import CabPostgres

extension PostgresStore: SavedPlaceRepository {
    /// The rider's saved places, "Home" and "Work" first (`SavedPlace.ordered`).
    public func savedPlaces(of rider: RiderID) throws -> [SavedPlace] {
        let places = try read { c in
            try c.query(
                "SELECT label, name, lat, lon, address, updated_ms FROM saved_places WHERE rider_id = $1",
                [rider.rawValue]
            ).rows.map { pg in
                let row = PostgresStoreRow(row: pg)
                do {
                    return try SavedPlace(
                        label: row.string(0), name: row.string(1),
                        coordinate: Coordinate(latitude: row.double(2), longitude: row.double(3)),
                        address: row.string(4), updatedAt: Instant(millisecondsSinceEpoch: row.int64(5)))
                } catch {
                    throw StoreError(.corruptRow, "A saved place of rider \(rider) does not pass its checks.")
                }
            }
        }
        return SavedPlace.ordered(places)
    }

    /// Stores `place` for `rider` durably, replacing the one with the same label in any case; refuses a new
    /// label past `SavedPlace.maximumPerRider`. The rider's row is locked first (`FOR NO KEY UPDATE`, which lets
    /// the rider's bookings go on), so two nodes saving new labels at once are counted one after the other.
    public func save(_ place: SavedPlace, for rider: RiderID) throws -> Bool {
        try write { c in
            guard try c.query("SELECT 1 FROM riders WHERE id = $1 FOR NO KEY UPDATE", [rider.rawValue]).first != nil
            else {
                throw CoreError(.notFound, "No rider \(rider).")
            }
            let existing =
                try c.query(
                    "SELECT 1 FROM saved_places WHERE rider_id = $1 AND label_key = $2",
                    [rider.rawValue, place.labelKey]
                ).first != nil
            if !existing {
                let count =
                    try c.query("SELECT count(*) FROM saved_places WHERE rider_id = $1", [rider.rawValue]).first?.int(0)
                    ?? 0
                guard count < SavedPlace.maximumPerRider else {
                    throw CoreError(
                        .invalidValue,
                        "A rider may save at most \(SavedPlace.maximumPerRider) places; "
                            + "delete one before saving another.")
                }
            }
            try c.query(
                """
                INSERT INTO saved_places (rider_id, label_key, label, name, lat, lon, address, updated_ms)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (rider_id, label_key) DO UPDATE SET label = excluded.label, name = excluded.name,
                    lat = excluded.lat, lon = excluded.lon, address = excluded.address, updated_ms = excluded.updated_ms
                """,
                [
                    rider.rawValue, place.labelKey, place.label, place.name, place.coordinate.latitude,
                    place.coordinate.longitude, place.address, place.updatedAt.millisecondsSinceEpoch,
                ] as [any PostgresBindable])
            return !existing
        }
    }

    /// Removes the rider's place labelled `label` (any case), durably; true when there was one.
    public func removeSavedPlace(labeled label: String, for rider: RiderID) throws -> Bool {
        try write { c in
            try c.query(
                "DELETE FROM saved_places WHERE rider_id = $1 AND label_key = $2",
                [rider.rawValue, SavedPlace.key(label)]
            ).affectedRows > 0
        }
    }
}
