import CabGeo
import CabSQLite

/// One read-only connection to a place index with its compiled statements.
///
/// `@unchecked Sendable`: `PlaceIndex` hands a connection to one thread at a time (it is checked out of a pool
/// guarded by a `Mutex` and returned after the call), so its SQLite handle and statements are never shared.
package final class PlaceConnection: @unchecked Sendable {
    package let database: SQLiteDatabase
    let candidates: SQLiteStatement
    let typoTerms: SQLiteStatement
    let shapes: SQLiteStatement
    let placeByID: SQLiteStatement

    static let placeColumns =
        "p.id, p.kind, p.name, p.names, p.category, p.address, p.housenumber, p.lat, p.lon, p.source_type, "
        + "p.source_id, p.importance, p.lang_names, p.area, p.pickup_name, p.pickup_lat, p.pickup_lon, p.pickup_kind, "
        + "p.folded_names"

    /// Opens `path` read-only and checks that it is a place index.
    init(path: String) throws(PlacesError) {
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly)
            let format = try database.query("SELECT value FROM meta WHERE key = 'format'") { $0.string(0) }
            guard format.first == PlaceSchema.format else {
                throw PlacesError(.notAnIndex, "\(path) is a place index of another version; rebuild it.")
            }
            try database.execute("PRAGMA query_only = 1; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -16384;")
            candidates = try database.prepare(
                "SELECT \(Self.placeColumns) FROM place_text JOIN place p ON p.id = place_text.rowid "
                    + "WHERE place_text MATCH ?1 LIMIT ?2", persistent: true)
            typoTerms = try database.prepare(
                "SELECT term FROM typo_term WHERE typo_term MATCH ?1 ORDER BY rank LIMIT ?2", persistent: true)
            shapes = try database.prepare(
                """
                SELECT place_id, role, kind, points FROM place_shape
                WHERE max_lat >= ?1 AND min_lat <= ?2 AND max_lon >= ?3 AND min_lon <= ?4
                """, persistent: true)
            placeByID = try database.prepare(
                "SELECT \(Self.placeColumns) FROM place p WHERE p.id = ?1", persistent: true)
        } catch let error as PlacesError {
            throw error
        } catch {
            throw PlacesError(.notAnIndex, "\(path) could not be opened as a place index.", underlying: error)
        }
    }

    /// A place row as the search ranks it.
    package struct Row {
        var id: Int
        var kind: PlaceKind
        package var name: String
        var names: [String]
        /// `names` folded (`TextFolding.folded`), in the same order, as written at build time.
        var foldedNames: [String]
        var category: String
        var address: String
        var housenumber: String?
        package var coordinate: Coordinate
        var source: PlaceSourceID
        var importance: Double
        /// `place.lang_names` as stored; decoded only for the results shown (`result`), not for every candidate.
        var encodedLocalizedNames: String
        var area: String
        var pickup: PlacePickupPoint?

        init(_ row: SQLiteRow) {
            id = row.int(0)
            kind = PlaceSchema.kind(code: row.int(1))
            name = row.string(2)
            names = PlaceSchema.fields(row.string(3))
            category = row.string(4)
            address = row.string(5)
            housenumber = row.optionalString(6)
            coordinate = Coordinate(latitude: row.double(7), longitude: row.double(8))
            source = PlaceSourceID(code: row.int(9), id: row.int64(10))
            importance = row.double(11)
            encodedLocalizedNames = row.string(12)
            foldedNames = PlaceSchema.fields(row.string(18))
            area = row.string(13)
            if let name = row.optionalString(14), let kind = row.optionalString(17) {
                pickup = PlacePickupPoint(
                    name: name, coordinate: Coordinate(latitude: row.double(15), longitude: row.double(16)), kind: kind)
            }
        }

        /// The result shown to a rider who reads `languages` (best first): the name in the first of them the place
        /// has a `name:xx` for, with the local name beside it when they differ.
        func result(distanceFrom point: Coordinate?, languages: [String] = []) -> PlaceResult {
            var shown = name
            var localName: String?
            var language: String?
            let localizedNames = languages.isEmpty ? [] : PlaceSchema.decodeLocalizedNames(encodedLocalizedNames)
            for wanted in languages {
                guard let found = localizedNames.first(where: { $0.language == wanted }) else { continue }
                if found.name != name {
                    shown = found.name
                    localName = name
                    language = wanted
                }
                break
            }
            return PlaceResult(
                name: shown, addressLine: address, category: category, coordinate: coordinate,
                distanceMeters: point.map { coordinate.distanceMeters(to: $0) }, kind: kind, source: source,
                localName: localName, language: language, area: area, importance: importance, pickup: pickup)
        }
    }

    /// Runs the candidate query: rows matching `expression`, most important first, at most `limit`.
    func candidates(matching expression: String, limit: Int) throws(SQLiteError) -> [Row] {
        candidates.reset()
        try candidates.bind([expression, limit])
        var rows: [Row] = []
        while try candidates.step() { rows.append(Row(candidates.row)) }
        return rows
    }

    /// The place with rowid `id`.
    package func place(id: Int) throws(SQLiteError) -> Row? {
        placeByID.reset()
        try placeByID.bind([id])
        return try placeByID.step() ? Row(placeByID.row) : nil
    }
}
