import CabGeo
import CabSQLite
import Synchronization

/// A GeoJSON FeatureCollection answering one base-map query.
public struct BaseMapFeatureCollection: Sendable {
    /// The FeatureCollection as UTF-8 JSON text. Each feature has an `id` (stable within one imported file) and
    /// `properties` `{"kind", "class", "name"}` (`name` omitted when the feature has none); the collection has a
    /// foreign member `"truncated": true|false`.
    public var geoJSON: String
    /// How many features it holds.
    public var featureCount: Int
    /// True when more features matched than the limit allowed; the least important were left out.
    public var truncated: Bool
}

/// Reads a base-map file written by `BaseMapWriter`: the drawable features in a box at a zoom.
///
/// Safe to share between threads: one read-only connection, used under a lock.
public final class BaseMapIndex: Sendable {
    /// The file name `cab import` writes in the data directory.
    public static let fileName = "basemap.sqlite"
    /// The cap on features per query when the caller gives none.
    public static let defaultLimit = 5_000
    /// The largest cap a caller may ask for.
    public static let maximumLimit = 20_000

    /// The connection and its statements. `@unchecked Sendable`: only used inside `connection.withLock`.
    final class Connection: @unchecked Sendable {
        let database: SQLiteDatabase
        let queries: [BaseMapZoomBand: SQLiteStatement]

        init(database: SQLiteDatabase) throws(SQLiteError) {
            self.database = database
            var queries: [BaseMapZoomBand: SQLiteStatement] = [:]
            for band in BaseMapZoomBand.allCases {
                // One statement per band: the column name cannot be a bound parameter.
                let column =
                    switch band {
                    case .far: "coordinates_far"
                    case .middle: "coordinates_middle"
                    case .near: "coordinates_near"
                    }
                queries[band] = try database.prepare(
                    """
                    SELECT f.id, f.kind, f.class, f.name, f.geometry_type, f.\(column)
                    FROM feature_box b JOIN feature f ON f.id = b.id
                    WHERE b.max_lon >= ?1 AND b.min_lon <= ?2 AND b.max_lat >= ?3 AND b.min_lat <= ?4
                      AND b.min_zoom <= ?5 AND f.\(column) IS NOT NULL
                    ORDER BY f.rank, f.id
                    LIMIT ?6
                    """, persistent: true)
            }
            self.queries = queries
        }
    }

    let connection: Mutex<Connection>
    /// A fingerprint of the file's content: it changes when the map is imported again with other data (see
    /// `BaseMapWriter`; files written before it stored one get a fingerprint of their counts and sizes).
    public let contentFingerprint: UInt64

    /// Opens the base-map file at `path` read-only.
    /// - Throws: `BaseMapError.unreadable` when the file is missing, damaged or from another format version.
    public init(path: String) throws(BaseMapError) {
        do {
            let database = try SQLiteDatabase(path: path, mode: .readOnly)
            let version = try database.query("SELECT value FROM meta WHERE key = 'format_version'") { $0.string(0) }
            guard version == [String(BaseMapWriter.formatVersion)] else {
                throw BaseMapError(
                    .unreadable,
                    "The base map at \(path) has format \(version.first ?? "none"), not \(BaseMapWriter.formatVersion): run `cab import` again."
                )
            }
            contentFingerprint = try Self.fingerprint(of: database)
            connection = Mutex(try Connection(database: database))
        } catch let error as BaseMapError {
            throw error
        } catch {
            throw BaseMapError(
                .unreadable, "Could not open the base map at \(path) (run `cab import`): \(error)", underlying: error)
        }
    }

    /// The features that intersect `box` and are drawn at `zoom`, most important first, at most `limit`
    /// (clamped to 1 ... `maximumLimit`), as a GeoJSON FeatureCollection. Geometry is simplified for the zoom band
    /// (zoom ≤ 12: 20 m, 13-14: 5 m, ≥ 15: as imported); buildings, footways and service roads appear from zoom 15.
    /// Features crossing the box are returned whole, so neighbouring boxes may share features (same `id`).
    /// - Complexity: an R*Tree search, O(log n + k log k) for k matching features.
    public func features(in box: BoundingBox, zoom: Int, limit: Int = BaseMapIndex.defaultLimit) throws(BaseMapError)
        -> BaseMapFeatureCollection
    {
        try collection(in: box, zoom: zoom, limit: min(max(limit, 1), Self.maximumLimit), byteBudget: nil, decimals: 6)
    }

    /// The features in `box` drawn at `zoom`, most important first (rank, then id), at most `limit`. With a
    /// `byteBudget`, a feature that would take the collection past that many bytes of JSON is left out (and the
    /// walk goes on to smaller ones) and the collection says `"truncated": true`. Coordinates are rounded to
    /// `decimals` places (at most the 6 stored). Road classes in `leavingOut` are skipped (not counted as
    /// truncation).
    func collection(
        in box: BoundingBox, zoom: Int, limit: Int, byteBudget: Int?, decimals: Int, leavingOut: Set<String> = []
    ) throws(BaseMapError) -> BaseMapFeatureCollection {
        let band = BaseMapZoomBand(zoom: zoom)
        let head = "{\"type\":\"FeatureCollection\",\"truncated\":false,\"features\":[]}".utf8.count + 1
        // With less room than this left the walk stops: most features are 120-300 bytes, and reading the rest of a
        // dense box only to find the few that fit costs more than they add.
        let enoughRoom = 1024
        do {
            return try connection.withLock { connection throws(SQLiteError) in
                // `queries` holds every band (built in init), so the subscript cannot be nil.
                let statement = connection.queries[band]!
                statement.reset()
                try statement.bind([
                    box.southWest.longitude, box.northEast.longitude, box.southWest.latitude, box.northEast.latitude,
                    zoom, limit + 1,
                ])
                var parts: [String] = []
                var bytes = head
                var truncated = false
                var rows = 0
                while try statement.step() {
                    rows += 1
                    if rows > limit {
                        truncated = true
                        break
                    }
                    let row = statement.row
                    if !leavingOut.isEmpty && row.string(1) == "road" && leavingOut.contains(row.string(2)) { continue }
                    let name = row.optionalString(3).map { ",\"name\":" + GeoJSONText.quoted($0) } ?? ""
                    let stored = row.string(5)
                    let coordinates = decimals < 6 ? GeoJSONText.rounding(stored, decimals: decimals) : stored
                    let part =
                        "{\"type\":\"Feature\",\"id\":\(row.int64(0)),\"properties\":{\"kind\":\"\(row.string(1))\","
                        + "\"class\":\(GeoJSONText.quoted(row.string(2)))\(name)},\"geometry\":{\"type\":\""
                        + row.string(4) + "\",\"coordinates\":" + coordinates + "}}"
                    if let byteBudget {
                        let size = part.utf8.count + (parts.isEmpty ? 0 : 1)
                        guard bytes + size <= byteBudget else {
                            truncated = true
                            if byteBudget - bytes < enoughRoom { break }
                            continue
                        }
                        bytes += size
                    }
                    parts.append(part)
                }
                statement.reset()
                return BaseMapFeatureCollection(
                    geoJSON: "{\"type\":\"FeatureCollection\",\"truncated\":\(truncated),\"features\":["
                        + parts.joined(separator: ",") + "]}",
                    featureCount: parts.count, truncated: truncated)
            }
        } catch {
            throw BaseMapError(.unreadable, "Could not read the base map: \(error.message)", underlying: error)
        }
    }

    /// How many features of each kind the file holds.
    public func countsByKind() throws(BaseMapError) -> [BaseMapKind: Int] {
        do {
            let rows = try connection.withLock { connection throws(SQLiteError) in
                try connection.database.query("SELECT kind, count(*) FROM feature GROUP BY kind") {
                    ($0.string(0), $0.int(1))
                }
            }
            var counts: [BaseMapKind: Int] = [:]
            for (kind, count) in rows { if let kind = BaseMapKind(rawValue: kind) { counts[kind] = count } }
            return counts
        } catch {
            throw BaseMapError(.unreadable, "Could not read the base map: \(error.message)", underlying: error)
        }
    }

    /// The fingerprint `BaseMapWriter` stored, else one of the feature table's count, last id and text lengths.
    private static func fingerprint(of database: SQLiteDatabase) throws(SQLiteError) -> UInt64 {
        let stored = try database.query("SELECT value FROM meta WHERE key = 'content_fingerprint'") { $0.string(0) }
        if let text = stored.first, let value = UInt64(text, radix: 16) { return value }
        let summary = try database.query(
            """
            SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || total(length(coordinates_near)) || ':'
                || total(length(coordinates_middle)) || ':' || total(length(coordinates_far)) || ':' || total(rank)
            FROM feature
            """
        ) { $0.string(0) }
        var hash = ContentFingerprint()
        hash.add(summary.first ?? "")
        return hash.value
    }
}
