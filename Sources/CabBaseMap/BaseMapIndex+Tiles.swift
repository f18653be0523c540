import CabGeo
import CabSQLite

extension BaseMapIndex {
    /// The most bytes of GeoJSON a tile holds (96 KiB): a tile that would be larger leaves out its least important
    /// features and says `"truncated": true`.
    public static let tileByteBudget = 96 * 1024

    /// A version of the rules that turn the file into tiles (budget, rounding); part of every tile's `ETag`, so
    /// that a server with other rules never answers 304 for a tile it would now write differently.
    public static let tileRulesVersion = 1

    /// Paths (footways, cycleways, steps) are in tiles from this zoom: the web app draws them only from here (below
    /// it they hide the streets), and in a city centre's tile at zoom 15 they are a third of the bytes.
    public static let pathTileZoom = 16
    /// The road classes `pathTileZoom` holds back.
    static let pathClasses: Set<String> = ["footway", "path", "steps", "cycleway", "bridleway"]

    /// The features drawn at `tile.zoom` that intersect the tile's box, most important first, as a GeoJSON
    /// FeatureCollection of at most `tileByteBudget` bytes: where the box holds more, features are taken by rank
    /// (then id) while they fit, the ones that do not are left out, and the collection says `"truncated": true`.
    /// Coordinates are rounded to the fewest decimals that keep every point within a quarter of a pixel of where it
    /// was (`coordinateDecimals(for:)`). Features crossing the tile are whole, as in `features(in:zoom:limit:)`;
    /// paths only from `pathTileZoom`. Features are found by their boxes, which the R*Tree keeps as 32-bit floats
    /// rounded outward: one ending within about half a metre of the tile comes too.
    /// - Complexity: an R*Tree search, O(log n + k log k) for k matching features.
    public func tile(_ tile: MapTile) throws(BaseMapError) -> BaseMapFeatureCollection {
        try collection(
            in: tile.boundingBox, zoom: tile.zoom, limit: Self.maximumLimit, byteBudget: Self.tileByteBudget,
            decimals: Self.coordinateDecimals(for: tile),
            leavingOut: tile.zoom < Self.pathTileZoom ? Self.pathClasses : [])
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
