import CabCore
import CabGeo
import CabSQLite

extension SQLiteStore: SavedPlaceRepository {
    /// The rider's saved places, "Home" and "Work" first (`SavedPlace.ordered`).
    public func savedPlaces(of rider: RiderID) throws -> [SavedPlace] {
        let places = try readers.read { c in
            try c.query(
                "SELECT label, name, lat, lon, address, updated_ms FROM saved_places WHERE rider_id = ?",
                [rider.rawValue]
            ) { row in
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
    /// label past `SavedPlace.maximumPerRider` (checked in the same transaction as the insert).
    public func save(_ place: SavedPlace, for rider: RiderID) throws -> Bool {
        try writer.write { c in
            let existing =
                try c.first(
                    "SELECT 1 FROM saved_places WHERE rider_id = ? AND label_key = ?", [rider.rawValue, place.labelKey]
                ) { _ in true } ?? false
            if !existing {
                let count =
                    try c.first("SELECT count(*) FROM saved_places WHERE rider_id = ?", [rider.rawValue]) { $0.int(0) }
                    ?? 0
                guard count < SavedPlace.maximumPerRider else {
                    throw CoreError(
                        .invalidValue,
                        "A rider may save at most \(SavedPlace.maximumPerRider) places; "
                            + "delete one before saving another.")
                }
            }
            try c.run(
                """
                INSERT INTO saved_places (rider_id, label_key, label, name, lat, lon, address, updated_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (rider_id, label_key) DO UPDATE SET label = excluded.label, name = excluded.name,
                    lat = excluded.lat, lon = excluded.lon, address = excluded.address, updated_ms = excluded.updated_ms
                """,
                [
                    rider.rawValue, place.labelKey, place.label, place.name, place.coordinate.latitude,
                    place.coordinate.longitude, place.address, place.updatedAt.millisecondsSinceEpoch,
                ])
            return !existing
        }
    }

    /// Removes the rider's place labelled `label` (any case), durably; true when there was one.
    public func removeSavedPlace(labeled label: String, for rider: RiderID) throws -> Bool {
        try writer.write { c in
            try c.run(
                "DELETE FROM saved_places WHERE rider_id = ? AND label_key = ?",
                [rider.rawValue, SavedPlace.key(label)])
                > 0
        }
    }
}
