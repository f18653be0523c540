import CabGeo
import CabImport
import Foundation
import Testing

@testable import CabBaseMap

/// The base map as slippy-map tiles: XYZ numbering, every tile of the Helsinki extract within the byte budget at
/// every zoom, the budget dropping the least important features first, geometry clipped to the tile, larger
/// features first within a rank, rounding, and the content fingerprint.
@Suite struct BaseMapTileTests {
    @Test func numberingIsTheSlippyMapsAndTheBoxHoldsThePoint() throws {
        let station = Coordinate(latitude: 60.1708, longitude: 24.9441)
        let tile = MapTile(containing: station, zoom: 15)
        #expect(tile == MapTile(zoom: 15, x: 18654, y: 9484))  // as OpenStreetMap's tile servers number it
        #expect(tile.boundingBox.contains(station))
        #expect(MapTile(zoom: 0, x: 0, y: 0)?.boundingBox.northEast.latitude ?? 0 > 85.05)
        #expect(MapTile(zoom: 23, x: 0, y: 0) == nil)
        #expect(MapTile(zoom: 2, x: 4, y: 0) == nil)
        #expect(MapTile(zoom: 2, x: 0, y: -1) == nil)
        let covering = MapTile.covering(tile.boundingBox, zoom: 17)
        #expect(covering.count == 16 || covering.count == 25)  // 4 x 4, or 5 x 5 where the edges touch
        #expect(Set(covering.map { MapTile(zoom: 15, x: $0.x >> 2, y: $0.y >> 2) }).contains(tile))
    }

    @Test func roundingKeepsAQuarterPixelAndTrimsZeros() {
        func written(_ stored: String, decimals: Int) -> String {
            var out: [UInt8] = []
            TileGeometry(shape: .lineString, coordinates: stored)?.appendCoordinates(decimals: decimals, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(
            written("[[24.934567,60.1],[-0.000004,1.999996],[5,-3.25]]", decimals: 5)
                == "[[24.93457,60.1],[0,2],[5,-3.25]]")
        #expect(written("[[24.934567,60.123456]]", decimals: 6) == "[[24.934567,60.123456]]")
        #expect(
            BaseMapIndex.coordinateDecimals(for: MapTile(containing: .init(latitude: 60, longitude: 25), zoom: 10)) == 4
        )
        #expect(
            BaseMapIndex.coordinateDecimals(for: MapTile(containing: .init(latitude: 60, longitude: 25), zoom: 14)) == 5
        )
        #expect(
            BaseMapIndex.coordinateDecimals(for: MapTile(containing: .init(latitude: 60, longitude: 25), zoom: 17)) == 6
        )
    }

    /// Every tile over the extract at every zoom a browser asks for fits the budget and holds only features that
    /// reach into it.
    @Test func everyTileOfTheExtractFitsTheBudget() throws {
        let index = try HelsinkiBaseMapTests.index.get()
        let extent = try #require(try index.extent())
        var tiles = 0
        var truncated = 0
        for zoom in 0...19 {
            for tile in MapTile.covering(extent, zoom: zoom) {
                let collection = try index.tile(tile)
                tiles += 1
                if collection.truncated { truncated += 1 }
                #expect(collection.geoJSON.utf8.count <= BaseMapIndex.tileByteBudget, "tile \(tile)")
                let object = try JSONSerialization.jsonObject(with: Data(collection.geoJSON.utf8)) as? [String: Any]
                let features = try #require(object?["features"] as? [[String: Any]])
                #expect(features.count == collection.featureCount)
                // Rounded to a quarter pixel (3 decimals at zoom 0-2): a feature may sit that far outside its box.
                let box = tile.boundingBox.expanded(byMeters: 100)
                for feature in features.prefix(50) {
                    let points = Self.points(feature["geometry"])
                    let around = try #require(BoundingBox(enclosing: points), "tile \(tile) has an empty feature")
                    #expect(
                        around.southWest.longitude <= box.northEast.longitude
                            && around.northEast.longitude >= box.southWest.longitude
                            && around.southWest.latitude <= box.northEast.latitude
                            && around.northEast.latitude >= box.southWest.latitude,
                        "tile \(tile): feature \(feature["id"] ?? "") is outside")
                }
            }
        }
        #expect(tiles > 300)
        // The extract's densest tiles at zoom 15-16 (buildings, footways) are over the budget: the rule is in use.
        #expect(truncated > 0)
    }

    /// Over the budget, streets stay and the least important features (buildings, then paths) go.
    @Test func theBudgetDropsBuildingsBeforeStreets() throws {
        let index = try HelsinkiBaseMapTests.index.get()
        let tile = MapTile(containing: Coordinate(latitude: 60.1686, longitude: 24.9414), zoom: 15)
        let all = try index.features(in: tile.boundingBox, zoom: 15, limit: BaseMapIndex.maximumLimit)
        try #require(all.geoJSON.utf8.count > BaseMapIndex.tileByteBudget, "the centre's tile is no longer dense")
        let served = try index.tile(tile)
        #expect(served.truncated && served.featureCount < all.featureCount)
        func streets(_ text: String, pointInside: Bool = false) throws -> Set<Int> {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let features = (object?["features"] as? [[String: Any]]) ?? []
            return Set(
                features.filter {
                    let properties = $0["properties"] as? [String: String]
                    return properties?["kind"] == "road"
                        && ["primary", "secondary", "tertiary", "residential"].contains(properties?["class"] ?? "")
                        && (!pointInside || Self.points($0["geometry"]).contains { tile.boundingBox.contains($0) })
                }.compactMap { $0["id"] as? Int })
        }
        // Every street with a point in the tile is there (one whose box only grazes the tile may not be: its shape
        // misses the tile, and clipping leaves nothing).
        #expect(try streets(all.geoJSON, pointInside: true).isSubset(of: streets(served.geoJSON)))
        #expect(try streets(served.geoJSON).isSubset(of: streets(all.geoJSON)))
        // Paths, which the web app draws only from zoom 16, are not sent before.
        #expect(!served.geoJSON.contains("\"class\":\"footway\"") && all.geoJSON.contains("\"class\":\"footway\""))
        let closer = try index.tile(MapTile(containing: Coordinate(latitude: 60.1686, longitude: 24.9414), zoom: 16))
        #expect(closer.geoJSON.contains("\"class\":\"footway\""))
    }

    @Test func theFingerprintFollowsTheContentAndNamesTheTile() throws {
        let first = try BaseMapImportTests.importFixture()
        let again = try BaseMapImportTests.importFixture()
        let helsinki = try HelsinkiBaseMapTests.index.get()
        #expect(first.contentFingerprint == again.contentFingerprint)
        #expect(first.contentFingerprint != helsinki.contentFingerprint)
        let tile = MapTile(zoom: 15, x: 18654, y: 9484)!
        #expect(first.entityTag(for: tile) == again.entityTag(for: tile))
        #expect(first.entityTag(for: tile) != first.entityTag(for: MapTile(zoom: 15, x: 18654, y: 9485)!))
        #expect(first.entityTag(for: tile).hasPrefix("\"") && first.entityTag(for: tile).hasSuffix("-15-18654-9484\""))
    }

    /// Geometry is clipped to the tile and its margin: a street longer than the tile is cut at the margin (buildings,
    /// which the web app strokes, come whole), and the pieces of a street in the tiles it crosses add up to it.
    @Test func geometryIsClippedAndThePiecesMakeTheWholeStreet() throws {
        let index = try HelsinkiBaseMapTests.index.get()
        let zoom = 18
        let extent = try #require(try index.extent())
        let whole = try Self.features(index.features(in: extent, zoom: zoom, limit: BaseMapIndex.maximumLimit).geoJSON)
        // The longest primary or secondary street of the extract: it crosses several tiles at zoom 18 (76 m wide).
        let streets = whole.filter {
            ["primary", "secondary"].contains(($0["properties"] as? [String: String])?["class"] ?? "")
                && ($0["geometry"] as? [String: Any])?["type"] as? String == "LineString"
        }
        let street = try #require(streets.max { Self.length($0["geometry"]) < Self.length($1["geometry"]) })
        let id = try #require(street["id"] as? Int)
        var pieces = 0.0
        var tilesHoldingIt = 0
        for tile in MapTile.covering(extent, zoom: zoom) {
            let features = try Self.features(index.tile(tile).geoJSON)
            let box = tile.boundingBox
            let width = box.northEast.longitude - box.southWest.longitude
            let height = box.northEast.latitude - box.southWest.latitude
            // The margin, and a quarter pixel of rounding.
            let pad = (Double(BaseMapIndex.tileMarginPixels) + 0.25) / 256
            for feature in features where (feature["properties"] as? [String: String])?["kind"] != "building" {
                for point in Self.points(feature["geometry"]) {
                    #expect(
                        point.longitude >= box.southWest.longitude - width * pad
                            && point.longitude <= box.northEast.longitude + width * pad
                            && point.latitude >= box.southWest.latitude - height * pad
                            && point.latitude <= box.northEast.latitude + height * pad,
                        "tile \(tile): feature \(feature["id"] ?? "") reaches beyond the margin")
                }
            }
            if let piece = features.first(where: { $0["id"] as? Int == id }) {
                tilesHoldingIt += 1
                pieces += Self.length(piece["geometry"])
            }
        }
        #expect(tilesHoldingIt >= 3, "street \(id) crosses \(tilesHoldingIt) tiles")
        // Each piece ends a margin beyond its tile, so together they are a little longer than the street, never
        // shorter; whole in every tile (as before clipping) they would be `tilesHoldingIt` times as long.
        let full = Self.length(street["geometry"])
        #expect(pieces >= full * 0.999 && pieces < full * 1.5, "pieces \(pieces) for a street of \(full)")
    }

    /// Within a rank, the features that cover more of the tile come first (a line's length, a polygon's area), so
    /// the budget leaves out the smallest; the order was the import order before.
    @Test func withinARankLargerFeaturesComeFirst() throws {
        let index = try HelsinkiBaseMapTests.index.get()
        var checkedPairs = 0
        for zoom in [13, 15, 16] {
            let tile = MapTile(containing: Coordinate(latitude: 60.1686, longitude: 24.9414), zoom: zoom)
            let box = tile.boundingBox
            let scale = (
                x: 256 / (box.northEast.longitude - box.southWest.longitude),
                y: 256 / (box.northEast.latitude - box.southWest.latitude)
            )
            var previous: (rank: Int, pixels: Double)?
            for feature in try Self.features(index.tile(tile).geoJSON) {
                let properties = try #require(feature["properties"] as? [String: String])
                let kind = try #require(BaseMapKind(rawValue: properties["kind"] ?? ""))
                let featureClass = properties["class"] ?? ""
                let rank = BaseMapFeature(kind: kind, featureClass: featureClass, geometry: .lineString([])).rank
                // A building crossing the edge is sent whole but ranked by its part in the tile: skip those.
                let points = Self.points(feature["geometry"])
                guard kind != .building || points.allSatisfy({ box.contains($0) }) else {
                    previous = nil
                    continue
                }
                let pixels = Self.pixels(feature["geometry"], scale: scale)
                if let previous, previous.rank == rank {
                    // Rounded coordinates (a quarter pixel) move sizes a little.
                    #expect(
                        pixels <= previous.pixels * 1.05 + 1,
                        "zoom \(zoom): feature \(feature["id"] ?? "") (\(pixels) px) after one of \(previous.pixels)")
                    checkedPairs += 1
                }
                if let before = previous { #expect(before.rank <= rank, "zoom \(zoom): ranks out of order") }
                previous = (rank, pixels)
            }
        }
        #expect(checkedPairs > 100)
    }

    static func features(_ geoJSON: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(geoJSON.utf8)) as? [String: Any]
        return try #require(object?["features"] as? [[String: Any]])
    }

    /// The lines of a LineString or MultiLineString, the rings of a Polygon or MultiPolygon.
    static func lines(_ geometry: Any?) -> (type: String, lines: [[Coordinate]]) {
        let object = geometry as? [String: Any]
        let type = object?["type"] as? String ?? ""
        func line(_ value: Any) -> [Coordinate] { points(["coordinates": value]) }
        let coordinates = object?["coordinates"] as? [Any] ?? []
        switch type {
        case "LineString": return (type, [line(coordinates)])
        case "MultiLineString", "Polygon": return (type, coordinates.map(line))
        case "MultiPolygon": return (type, coordinates.flatMap { ($0 as? [Any] ?? []).map(line) })
        default: return (type, [])
        }
    }

    /// A line's length in degrees (longitude scaled for 60°N).
    static func length(_ geometry: Any?) -> Double {
        lines(geometry).lines.reduce(0) { total, line in
            zip(line, line.dropFirst()).reduce(total) { sum, pair in
                let dx = (pair.1.longitude - pair.0.longitude) * 0.5
                let dy = pair.1.latitude - pair.0.latitude
                return sum + (dx * dx + dy * dy).squareRoot()
            }
        }
    }

    /// Length in pixels, or area in square pixels for polygons (first ring of each polygon counted, holes taken
    /// off).
    static func pixels(_ geometry: Any?, scale: (x: Double, y: Double)) -> Double {
        let (type, lines) = lines(geometry)
        if type == "Polygon" || type == "MultiPolygon" {
            let object = geometry as? [String: Any]
            let polygons: [Any] =
                type == "Polygon" ? [object?["coordinates"] ?? []] : (object?["coordinates"] as? [Any] ?? [])
            var area = 0.0
            for polygon in polygons {
                for (r, ring) in (polygon as? [Any] ?? []).enumerated() {
                    let points = Self.points(["coordinates": ring])
                    let shoelace = zip(points, points.dropFirst()).reduce(0.0) {
                        $0 + $1.0.longitude * $1.1.latitude - $1.1.longitude * $1.0.latitude
                    }
                    let ringArea = abs(shoelace) / 2 * scale.x * scale.y
                    area += r == 0 ? ringArea : -ringArea
                }
            }
            return area
        }
        return lines.reduce(0) { total, line in
            zip(line, line.dropFirst()).reduce(total) { sum, pair in
                let dx = (pair.1.longitude - pair.0.longitude) * scale.x
                let dy = (pair.1.latitude - pair.0.latitude) * scale.y
                return sum + (dx * dx + dy * dy).squareRoot()
            }
        }
    }

    static func points(_ geometry: Any?) -> [Coordinate] {
        var out: [Coordinate] = []
        func number(_ value: Any) -> Double? {
            (value as? Double) ?? (value as? Int).map(Double.init) ?? (value as? NSNumber)?.doubleValue
        }
        func walk(_ value: Any) {
            guard let list = value as? [Any] else { return }
            if list.count == 2, let lon = number(list[0]), let lat = number(list[1]) {
                out.append(Coordinate(latitude: lat, longitude: lon))
            } else {
                list.forEach(walk)
            }
        }
        if let coordinates = (geometry as? [String: Any])?["coordinates"] { walk(coordinates) }
        return out
    }
}
