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
    /// How many features that reach a tile its byte budget left out (one more when more than
    /// `BaseMapIndex.maximumLimit` matched); 0 from `features(in:zoom:limit:)`, which does not count them.
    public var featuresLeftOut: Int = 0
}

/// One stored feature as a tile reads it.
struct TileRow {
    var id: Int64
    var kind: String
    var featureClass: String
    var name: String?
    var geometryType: String
    var coordinates: String
    var rank: Int
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
        /// Per band: the features in a box, rank then id first (the bbox endpoint, which stops at its limit).
        let queries: [BaseMapZoomBand: SQLiteStatement]
        /// Per band: the same in the R*Tree's order, for tiles, which read every candidate and order them
        /// themselves (SQLite's sort of the whole rows cost about a third of a dense tile's query).
        let tileQueries: [BaseMapZoomBand: SQLiteStatement]

        init(database: SQLiteDatabase) throws(SQLiteError) {
            self.database = database
            var queries: [BaseMapZoomBand: SQLiteStatement] = [:]
            var tileQueries: [BaseMapZoomBand: SQLiteStatement] = [:]
            for band in BaseMapZoomBand.allCases {
                // One statement per band: the column name cannot be a bound parameter.
                let column =
                    switch band {
                    case .far: "coordinates_far"
                    case .middle: "coordinates_middle"
                    case .near: "coordinates_near"
                    }
                let select = """
                    SELECT f.id, f.kind, f.class, f.name, f.geometry_type, f.\(column), f.rank
                    FROM feature_box b JOIN feature f ON f.id = b.id
                    WHERE b.max_lon >= ?1 AND b.min_lon <= ?2 AND b.max_lat >= ?3 AND b.min_lat <= ?4
                      AND b.min_zoom <= ?5 AND f.\(column) IS NOT NULL
                    """
                queries[band] = try database.prepare(select + " ORDER BY f.rank, f.id LIMIT ?6", persistent: true)
                tileQueries[band] = try database.prepare(select + " LIMIT ?6", persistent: true)
            }
            self.queries = queries
            self.tileQueries = tileQueries
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
        try collection(in: box, zoom: zoom, limit: min(max(limit, 1), Self.maximumLimit))
    }

    /// The features in `box` drawn at `zoom`, most important first (rank, then id), at most `limit`, with the
    /// coordinates as stored (6 decimals). Tiles are written by `tile(_:)` instead (clipped, ordered, rounded).
    func collection(in box: BoundingBox, zoom: Int, limit: Int) throws(BaseMapError) -> BaseMapFeatureCollection {
        let band = BaseMapZoomBand(zoom: zoom)
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
                var truncated = false
                while try statement.step() {
                    if parts.count == limit {
                        truncated = true
                        break
                    }
                    let row = statement.row
                    let name = row.optionalString(3).map { ",\"name\":" + GeoJSONText.quoted($0) } ?? ""
                    parts.append(
                        "{\"type\":\"Feature\",\"id\":\(row.int64(0)),\"properties\":{\"kind\":\"\(row.string(1))\","
                            + "\"class\":\(GeoJSONText.quoted(row.string(2)))\(name)},\"geometry\":{\"type\":\""
                            + row.string(4) + "\",\"coordinates\":" + row.string(5) + "}}")
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

    /// The features in `box` drawn at `zoom`, in the R*Tree's order, at most `limit` (which ones, when more match,
    /// is unspecified), read under the lock and parsed outside it; road classes in `leavingOut` are skipped.
    /// `overLimit` says more matched.
    func rows(in box: BoundingBox, zoom: Int, limit: Int, leavingOut: Set<String>) throws(BaseMapError)
        -> (features: [TileRow], overLimit: Bool)
    {
        do {
            return try connection.withLock { connection throws(SQLiteError) in
                // `queries` holds every band (built in init), so the subscript cannot be nil.
                let statement = connection.tileQueries[BaseMapZoomBand(zoom: zoom)]!
                statement.reset()
                defer { statement.reset() }
                try statement.bind([
                    box.southWest.longitude, box.northEast.longitude, box.southWest.latitude, box.northEast.latitude,
                    zoom, limit + 1,
                ])
                var features: [TileRow] = []
                while try statement.step() {
                    if features.count == limit { return (features, true) }
                    let row = statement.row
                    let featureClass = row.string(2)
                    let kind = row.string(1)
                    if !leavingOut.isEmpty && kind == "road" && leavingOut.contains(featureClass) { continue }
                    features.append(
                        TileRow(
                            id: row.int64(0), kind: kind, featureClass: featureClass, name: row.optionalString(3),
                            geometryType: row.string(4), coordinates: row.string(5), rank: row.int(6)))
                }
                return (features, false)
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
