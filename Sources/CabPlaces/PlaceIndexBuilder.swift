import CabGeo
import CabSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a build produced.
public struct PlaceIndexBuildReport: Sendable, Equatable {
    /// Features handed to `add`.
    public var features: Int
    /// Rows written, by kind.
    public var pois: Int, streets: Int, addresses: Int, areas: Int
    /// Time spent in `add` and `finish`, in seconds.
    public var buildSeconds: Double
    /// The size of the finished file in bytes.
    public var sizeBytes: Int

    /// Every row written.
    public var places: Int { pois + streets + addresses + areas }
}

/// Builds a place index file from `PlaceFeature`s: collect with `add`, then `finish` writes the file in one
/// transaction (streets merged, addresses de-duplicated, display addresses filled in), optimises the FTS
/// indexes, runs `ANALYZE` and `VACUUM`, and moves the file into place atomically.
///
/// Not thread-safe: one importer feeds it.
public final class PlaceIndexBuilder {
    /// Where the finished index goes.
    public let path: String
    /// How far a POI without its own address looks for the street to show, in metres.
    public static let nearestStreetRadiusMeters = 200.0

    /// How importance is computed from tags.
    public let importance: PlaceImportance

    private var records: [PlaceRecord] = []
    private var streetSegments: [PlaceRecord] = []
    private var pickups = PickupFinder()
    private var features = 0
    private var elapsed = Duration.zero
    private let clock = ContinuousClock()

    /// A builder that will write `path` (replacing any file there when `finish` succeeds), scoring importance
    /// with `importance`.
    public init(path: String, importance: PlaceImportance = PlaceImportance()) {
        self.path = path
        self.importance = importance
    }

    /// Adds one feature; features that name nothing a rider would search for are ignored.
    public func add(_ feature: PlaceFeature) {
        let start = clock.now
        features += 1
        guard !feature.geometry.allPoints.isEmpty, feature.geometry.allPoints.allSatisfy(\.isValid) else { return }
        pickups.consider(feature)
        for record in PlaceClassifier.classify(feature) {
            if record.kind == .street { streetSegments.append(record) } else { records.append(record) }
        }
        elapsed += clock.now - start
    }

    /// Writes the index and returns what it holds.
    /// - Complexity: O(n log n) in the number of places, plus SQLite's index builds.
    public func finish() throws(PlacesError) -> PlaceIndexBuildReport {
        let start = clock.now
        let all = prepareRows()
        let temporaryPath = path + ".building"
        removeFile(temporaryPath)
        do {
            let db = try SQLiteDatabase(path: temporaryPath)
            try db.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-131072;")
            try db.execute(PlaceSchema.create)
            try db.execute("BEGIN")
            try write(all, to: db)
            try db.execute("INSERT INTO place_text(place_text) VALUES('optimize')")
            try db.execute(PlaceSchema.fillTypoTerms)
            try db.execute("INSERT INTO typo_term(typo_term) VALUES('optimize')")
            try db.run(
                "INSERT INTO meta(key, value) VALUES ('format', ?1), ('places', ?2)",
                [PlaceSchema.format, String(all.count)])
            try db.execute("COMMIT")
            try db.execute("ANALYZE; VACUUM;")
        } catch {
            removeFile(temporaryPath)
            throw PlacesError(.storage, "Could not write the place index at \(path).", underlying: error)
        }
        guard rename(temporaryPath, path) == 0 else {
            removeFile(temporaryPath)
            throw PlacesError(.storage, "Could not move the finished place index to \(path).")
        }
        elapsed += clock.now - start
        var report = PlaceIndexBuildReport(
            features: features, pois: 0, streets: 0, addresses: 0, areas: 0,
            buildSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
            sizeBytes: fileSize(path))
        for record in all {
            switch record.kind {
            case .poi: report.pois += 1
            case .street: report.streets += 1
            case .address: report.addresses += 1
            case .area: report.areas += 1
            }
        }
        return report
    }

    /// Streets merged, addresses de-duplicated, display addresses filled, everything in importance order.
    private func prepareRows() -> [PlaceRecord] {
        let streets = StreetMerger.merge(streetSegments)
        var grid = SegmentGrid(referenceLatitude: streets.first?.coordinate.latitude ?? 0)
        for (i, street) in streets.enumerated() {
            for part in street.geometry.parts { grid.insert(part, street: i) }
        }
        var all = streets
        let areas = AreaLocator(records)
        var addressIndex: [String: Int] = [:]
        for var record in records {
            switch record.kind {
            case .address:
                let key = [
                    TextFolding.folded(record.street ?? ""), TextFolding.folded(record.housenumber ?? ""),
                    PlaceSchema.cellToken(record.coordinate),
                ].joined(separator: "|")
                if let existing = addressIndex[key] {
                    // Keep the building outline over a POI node carrying the same address.
                    if case .area = record.geometry, case .point = all[existing].geometry { all[existing] = record }
                    continue
                }
                addressIndex[key] = all.count
            case .poi:
                if let own = record.ownAddress {
                    record.addressLine = own
                } else if let hit = grid.nearest(to: record.coordinate, radiusMeters: Self.nearestStreetRadiusMeters) {
                    record.addressLine = streets[hit.street].name
                }
            case .street, .area:
                break
            }
            all.append(record)
        }
        for i in all.indices {
            all[i].importance = importance.score(all[i].signals)
            all[i].area = areas.describe(all[i])
            all[i].pickup = pickups.pickup(for: all[i]) { point in
                grid.nearest(to: point, radiusMeters: Self.nearestStreetRadiusMeters).map { streets[$0.street].name }
            }
        }
        // Importance order becomes rowid order: FTS5 returns matches most-important first.
        all.sort { ($0.importance, $1.name.count, $1.source.id) > ($1.importance, $0.name.count, $0.source.id) }
        return all
    }

    private func write(_ all: [PlaceRecord], to db: SQLiteDatabase) throws(SQLiteError) {
        let place = try db.prepare(
            """
            INSERT INTO place(id, kind, name, names, category, address, housenumber, lat, lon, source_type,
                source_id, importance, lang_names, area, pickup_name, pickup_lat, pickup_lon, pickup_kind, folded_names)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
            """, persistent: true)
        let text = try db.prepare(
            "INSERT INTO place_text(rowid, names, extra, cells) VALUES (?1, ?2, ?3, ?4)", persistent: true)
        let shape = try db.prepare(
            """
            INSERT INTO place_shape(id, min_lat, max_lat, min_lon, max_lon, place_id, role, kind, points)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """, persistent: true)
        var shapeID = 0
        for (offset, r) in all.enumerated() {
            let id = offset + 1
            place.reset()
            try place.bind([
                id, PlaceSchema.kindCode(r.kind), r.name, r.names.joined(separator: String(PlaceSchema.nameSeparator)),
                r.category.label, r.addressLine, r.housenumber, r.coordinate.latitude, r.coordinate.longitude,
                r.source.code, r.source.id, r.importance, PlaceSchema.encodeLocalizedNames(r.localizedNames), r.area,
                r.pickup?.name, r.pickup?.coordinate.latitude, r.pickup?.coordinate.longitude, r.pickup?.kind,
                r.names.map { TextFolding.folded($0) }.joined(separator: String(PlaceSchema.nameSeparator)),
            ])
            try place.step()

            var names = r.names
            var extra = r.category.searchText
            if r.kind == .address {
                names = [r.street ?? r.name]
                extra = HouseNumber.searchTokens(r.housenumber ?? "").joined(separator: " ")
            }
            text.reset()
            try text.bind([id, names.joined(separator: " ; "), extra, PlaceSchema.cellToken(r.coordinate)])
            try text.step()

            guard r.reverseShape else { continue }
            for (role, points) in r.shapes {
                guard let box = BoundingBox(enclosing: points) else { continue }
                shapeID += 1
                shape.reset()
                try shape.bind([
                    shapeID, box.southWest.latitude, box.northEast.latitude, box.southWest.longitude,
                    box.northEast.longitude, id, role.rawValue, PlaceSchema.kindCode(r.kind),
                    PlaceSchema.encode(points),
                ])
                try shape.step()
            }
        }
    }

    private func removeFile(_ path: String) {
        unlink(path)  // a missing file is the expected case; nothing to report
    }

    private func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
