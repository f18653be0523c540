import CabGeo
import CabImport
import Foundation
import Testing

@testable import CabBaseMap

/// The base map as slippy-map tiles: XYZ numbering, every tile of the Helsinki extract within the byte budget at
/// every zoom, the budget dropping the least important features first, rounding, and the content fingerprint.
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
        #expect(
            GeoJSONText.rounding("[[24.934567,60.1],[-0.000004,1.999996],[5,-3.25]]", decimals: 5)
                == "[[24.93457,60.1],[0,2],[5,-3.25]]")
        #expect(GeoJSONText.rounding("[[24.934567,60.123456]]", decimals: 6) == "[[24.934567,60.123456]]")
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
        func streets(_ text: String) throws -> Set<Int> {
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let features = (object?["features"] as? [[String: Any]]) ?? []
            return Set(
                features.filter {
                    let properties = $0["properties"] as? [String: String]
                    return properties?["kind"] == "road"
                        && ["primary", "secondary", "tertiary", "residential"].contains(properties?["class"] ?? "")
                }.compactMap { $0["id"] as? Int })
        }
        #expect(try streets(served.geoJSON) == streets(all.geoJSON))
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
