import CabGeo
import CabSQLite

/// Builds a base-map file: features with their geometry per zoom band, indexed by an R*Tree over
/// (longitude, latitude, zoom) so that a query prunes both by place and by zoom.
///
/// Use from one thread: `add` every feature, then `finish`. The file is replaced.
public final class BaseMapWriter {
    /// The schema version stored in the file; `BaseMapIndex` refuses other versions.
    static let formatVersion = 1

    private let database: SQLiteDatabase
    private let insertFeature: SQLiteStatement
    private let insertBox: SQLiteStatement
    private var finished = false
    /// Everything added so far, hashed: stored as the file's `content_fingerprint` (tile `ETag`s carry it).
    private var fingerprint = ContentFingerprint()
    /// How many features of each kind were added.
    public private(set) var countsByKind: [BaseMapKind: Int] = [:]

    /// Creates (or empties) the base-map file at `path` and starts a transaction.
    public init(path: String) throws(BaseMapError) {
        do {
            database = try SQLiteDatabase(path: path)
            try database.execute(
                """
                PRAGMA journal_mode = DELETE;
                DROP TABLE IF EXISTS feature;
                DROP TABLE IF EXISTS feature_box;
                DROP TABLE IF EXISTS meta;
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE feature (
                    id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    class TEXT NOT NULL,
                    name TEXT,
                    rank INTEGER NOT NULL,
                    geometry_type TEXT NOT NULL,
                    coordinates_far TEXT,
                    coordinates_middle TEXT,
                    coordinates_near TEXT NOT NULL
                );
                CREATE VIRTUAL TABLE feature_box USING rtree(id, min_lon, max_lon, min_lat, max_lat, min_zoom, max_zoom);
                BEGIN;
                """)
            insertFeature = try database.prepare(
                """
                INSERT INTO feature (kind, class, name, rank, geometry_type, coordinates_far, coordinates_middle,
                    coordinates_near) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, persistent: true)
            insertBox = try database.prepare("INSERT INTO feature_box VALUES (?, ?, ?, ?, ?, ?, 99)", persistent: true)
        } catch {
            throw BaseMapError(
                .writeFailed, "Could not create the base map at \(path): \(error.message)", underlying: error)
        }
    }

    /// Adds `feature`, with its geometry simplified for each zoom band it is served at. Features without points
    /// are ignored.
    public func add(_ feature: BaseMapFeature) throws(BaseMapError) {
        precondition(!finished, "BaseMapWriter.add after finish")
        guard let box = feature.geometry.boundingBox else { return }
        let minimumZoom = feature.minimumZoom
        func band(_ band: BaseMapZoomBand) -> String? {
            guard minimumZoom <= band.maximumZoom else { return nil }
            return Simplification.simplify(feature.geometry, toleranceMeters: band.toleranceMeters)
                .map(GeoJSONText.coordinates(of:))
        }
        let far = band(.far)
        let middle = band(.middle)
        let near = GeoJSONText.coordinates(of: feature.geometry)
        for text in [
            feature.kind.rawValue, feature.featureClass, feature.name ?? "", String(feature.rank), String(minimumZoom),
            feature.geometry.geoJSONType, far ?? "", middle ?? "", near,
        ] {
            fingerprint.add(text)
        }
        do {
            insertFeature.reset()
            try insertFeature.bind([
                feature.kind.rawValue, feature.featureClass, feature.name, feature.rank, feature.geometry.geoJSONType,
                far, middle, near,
            ])
            try insertFeature.step()
            insertBox.reset()
            try insertBox.bind([
                database.lastInsertRowID, box.southWest.longitude, box.northEast.longitude, box.southWest.latitude,
                box.northEast.latitude, minimumZoom,
            ])
            try insertBox.step()
        } catch {
            throw BaseMapError(.writeFailed, "Could not store a base-map feature: \(error.message)", underlying: error)
        }
        countsByKind[feature.kind, default: 0] += 1
    }

    /// Records the format version and the content fingerprint, and commits. The writer accepts nothing after this.
    public func finish() throws(BaseMapError) {
        precondition(!finished, "BaseMapWriter.finish called twice")
        finished = true
        do {
            try database.run("INSERT INTO meta VALUES ('format_version', ?)", [String(Self.formatVersion)])
            try database.run(
                "INSERT INTO meta VALUES ('content_fingerprint', ?)", [String(fingerprint.value, radix: 16)])
            try database.execute("COMMIT; ANALYZE;")
        } catch {
            throw BaseMapError(.writeFailed, "Could not finish the base map: \(error.message)", underlying: error)
        }
    }
}
