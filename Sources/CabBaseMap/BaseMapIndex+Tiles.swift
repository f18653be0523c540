import CabGeo
import CabSQLite

extension BaseMapIndex {
    /// The most bytes of GeoJSON a tile holds (96 KiB): a tile that would be larger leaves out its least important
    /// features and says `"truncated": true`.
    public static let tileByteBudget = 96 * 1024

    /// A version of the rules that turn the file into tiles (budget, rounding, clipping, order); part of every tile's
    /// `ETag`, so that a server with other rules never answers 304 for a tile it would now write differently.
    /// Version 3: residential streets from zoom 14 (they were drawn from 13; a map imported before keeps 13).
    public static let tileRulesVersion = 3

    /// Paths (footways, cycleways, steps) are in tiles from this zoom: the web app draws them only from here (below
    /// it they hide the streets), and in a city centre's tile at zoom 15 they are a third of the bytes.
    public static let pathTileZoom = 16
    /// The road classes `pathTileZoom` holds back.
    static let pathClasses: Set<String> = ["footway", "path", "steps", "cycleway", "bridleway"]

    /// How far beyond its edges a tile's geometry reaches, in its pixels: a line cut at the edge ends under the
    /// neighbour's stroke, so strokes join across tile edges (the web app's widest road is 28 px at zoom 19, its
    /// streets 4-10 px at zoom 15-17, drawn with round caps).
    public static let tileMarginPixels = 4

    /// The features drawn at `tile.zoom` that reach into the tile, as a GeoJSON FeatureCollection of at most
    /// `tileByteBudget` bytes. Geometry is clipped to the tile's box grown by `tileMarginPixels` on every side:
    /// lines are cut into the pieces inside (a LineString cut in several becomes a MultiLineString), polygons are
    /// clipped as polygons (Sutherland-Hodgman), except buildings, which are sent whole (the web app strokes them, so
    /// a cut would show; they are small). Features are ordered by rank, then by how much of the tile they cover
    /// (a line's length in pixels, a polygon's area in square pixels), larger first, then id; where the tile
    /// holds more than the budget, features are taken in that order while they fit, the ones that do not are left
    /// out (the smallest of a rank first), and the collection says `"truncated": true`. Coordinates are rounded to
    /// the fewest decimals that keep every point within a quarter of a pixel of where it was
    /// (`coordinateDecimals(for:)`); paths only from `pathTileZoom`.
    /// - Complexity: an R*Tree search, then O(p + k log k) for k matching features with p points.
    public func tile(_ tile: MapTile) throws(BaseMapError) -> BaseMapFeatureCollection {
        let box = tile.boundingBox
        let width = box.northEast.longitude - box.southWest.longitude
        let height = box.northEast.latitude - box.southWest.latitude
        let margin = Double(Self.tileMarginPixels) / 256
        let clip = TileGeometry.Box(
            west: box.southWest.longitude - width * margin, south: box.southWest.latitude - height * margin,
            east: box.northEast.longitude + width * margin, north: box.northEast.latitude + height * margin)
        let inside = TileGeometry.Box(
            west: box.southWest.longitude, south: box.southWest.latitude, east: box.northEast.longitude,
            north: box.northEast.latitude)
        // Features whose box reaches the tile; the margin only extends the ones that do.
        let matched = try rows(
            in: box, zoom: tile.zoom, limit: Self.maximumLimit,
            leavingOut: tile.zoom < Self.pathTileZoom ? Self.pathClasses : [])
        let scale = TileGeometry.Point(x: 256 / width, y: 256 / height)
        var candidates: [(row: TileRow, geometry: TileGeometry, pixels: Double)] = []
        candidates.reserveCapacity(matched.features.count)
        for row in matched.features {
            guard let shape = TileGeometry.Shape(geoJSONType: row.geometryType),
                let stored = TileGeometry(shape: shape, coordinates: row.coordinates)
            else {
                throw BaseMapError(.unreadable, "The base map's feature \(row.id) has geometry that cannot be read.")
            }
            let building = row.kind == BaseMapKind.building.rawValue
            let inTile = stored.clipped(to: clip)
            // Its box reached the tile; its shape must too (not only the margin).
            guard !inTile.isEmpty, !inTile.clipped(to: inside).isEmpty else { continue }
            candidates.append((row, building ? stored : inTile, inTile.pixels(scale: scale)))
        }
        candidates.sort {
            ($0.row.rank, -$0.pixels, $0.row.id) < ($1.row.rank, -$1.pixels, $1.row.id)
        }
        let decimals = Self.coordinateDecimals(for: tile)
        let head = Array("{\"type\":\"FeatureCollection\",\"truncated\":".utf8)
        var features: [UInt8] = []
        features.reserveCapacity(Self.tileByteBudget)
        // The collection's own bytes: head, "false" or "true", `,"features":[`, `]}`.
        let frame = head.count + 5 + 13 + 2
        var taken = 0
        var truncated = matched.overLimit
        var part: [UInt8] = []
        for (row, geometry, _) in candidates {
            part.removeAll(keepingCapacity: true)
            if taken > 0 { part.append(UInt8(ascii: ",")) }
            part += Array("{\"type\":\"Feature\",\"id\":\(row.id),\"properties\":{\"kind\":\"\(row.kind)\",".utf8)
            part += Array("\"class\":".utf8)
            part += Array(GeoJSONText.quoted(row.featureClass).utf8)
            if let name = row.name { part += Array((",\"name\":" + GeoJSONText.quoted(name)).utf8) }
            part += Array("},\"geometry\":{\"type\":\"\(geometry.geoJSONType)\",\"coordinates\":".utf8)
            geometry.appendCoordinates(decimals: decimals, to: &part)
            part += Array("}}".utf8)
            guard frame + features.count + part.count <= Self.tileByteBudget else {
                truncated = true
                // With less room than this left the walk stops: most features are 120-300 bytes.
                if Self.tileByteBudget - frame - features.count < 1024 { break }
                continue
            }
            features += part
            taken += 1
        }
        let geoJSON =
            String(decoding: head, as: UTF8.self) + (truncated ? "true" : "false") + ",\"features\":["
            + String(decoding: features, as: UTF8.self) + "]}"
        return BaseMapFeatureCollection(
            geoJSON: geoJSON, featureCount: taken, truncated: truncated,
            featuresLeftOut: candidates.count - taken + (matched.overLimit ? 1 : 0))
    }

    /// The decimals a tile's coordinates keep: the fewest (3 ... 6) for which rounding moves a point by at most a
    /// quarter of one of the tile's 256 pixels (latitude, the finer axis on Web Mercator). At 60°N: zoom ≤ 11
    /// keeps 4, 12-15 keep 5, 16 and above 6 (the stored precision).
    public static func coordinateDecimals(for tile: MapTile) -> Int {
        let quarterPixel = tile.pixelLatitudeDegrees / 4
        var decimals = 3
        var halfStep = 0.000_5
        while decimals < 6 && halfStep > quarterPixel {
            decimals += 1
            halfStep /= 10
        }
        return decimals
    }

    /// The tile's strong `ETag` (quotes included): the map file's content fingerprint, the tile rules' version and
    /// the tile's numbers, so it changes when the imported map does.
    public func entityTag(for tile: MapTile) -> String {
        "\"bm-\(String(contentFingerprint, radix: 16))-t\(Self.tileRulesVersion)-\(tile.zoom)-\(tile.x)-\(tile.y)\""
    }

    /// The box around every feature of the map, nil for an empty map.
    public func extent() throws(BaseMapError) -> BoundingBox? {
        do {
            let rows = try connection.withLock { connection throws(SQLiteError) in
                try connection.database.query(
                    "SELECT min(min_lon), min(min_lat), max(max_lon), max(max_lat), count(*) FROM feature_box"
                ) { row in
                    row.int(4) == 0
                        ? nil
                        : BoundingBox(
                            southWest: Coordinate(latitude: row.double(1), longitude: row.double(0)),
                            northEast: Coordinate(latitude: row.double(3), longitude: row.double(2)))
                }
            }
            return rows.first ?? nil
        } catch {
            throw BaseMapError(.unreadable, "Could not read the base map: \(error.message)", underlying: error)
        }
    }
}
