import CabBaseMap
import CabGeo
import CabImport
import CabTestSupport
import Foundation
import Testing

/// The base map of the real Helsinki extract (about 1 x 1.7 km of the city centre).
@Suite struct HelsinkiBaseMapTests {
    static let index: Result<BaseMapIndex, any Error> = Result {
        let directory = try TestData.temporaryDirectory("basemap-helsinki")
        let path = directory.appendingPathComponent(BaseMapIndex.fileName).path
        try BaseMapImport.importFile(pbfPath: TestData.sharedExtract("helsinki").path, to: path)
        return try BaseMapIndex(path: path)
    }

    @Test func featureCountsByKindArePlausibleForACityCentre() throws {
        let counts = try Self.index.get().countsByKind()
        // osmium counts 536 building-tagged and 5,130 ways in all: most buildings and hundreds of roads are drawn.
        #expect((300...700).contains(counts[.building] ?? 0), "\(counts)")
        #expect((300...3_000).contains(counts[.road] ?? 0), "\(counts)")
        #expect((10...400).contains(counts[.green] ?? 0), "\(counts)")
        // The central station's yard and the tram network: hundreds of track ways (586 railway-tagged elements).
        #expect((50...586).contains(counts[.railway] ?? 0), "\(counts)")
        #expect((1...100).contains(counts[.water] ?? 0), "\(counts)")
    }

    @Test func aKnownStreetComesBackWithItsNameAroundIt() throws {
        // Fabianinkatu (way 4243036, highway=residential) runs north-south east of the Esplanadi.
        let around = BoundingBox(
            southWest: Coordinate(latitude: 60.1665, longitude: 24.9485),
            northEast: Coordinate(latitude: 60.1690, longitude: 24.9515))
        let collection = try Self.index.get().features(in: around, zoom: 17)
        #expect(!collection.truncated)
        let object = try JSONSerialization.jsonObject(with: Data(collection.geoJSON.utf8)) as? [String: Any]
        let features = try #require(object?["features"] as? [[String: Any]])
        let names = features.compactMap { ($0["properties"] as? [String: String])?["name"] }
        #expect(names.contains("Fabianinkatu"))
        let street = features.first { ($0["properties"] as? [String: String])?["name"] == "Fabianinkatu" }
        #expect((street?["properties"] as? [String: String])?["class"] == "residential")
    }

    @Test func zoomingOutDropsBuildingsAndSimplifiesLines() throws {
        let index = try Self.index.get()
        let all = BoundingBox(
            southWest: Coordinate(latitude: 60.1641, longitude: 24.9351),
            northEast: Coordinate(latitude: 60.1792, longitude: 24.9535))
        let near = try index.features(in: all, zoom: 16, limit: BaseMapIndex.maximumLimit)
        let far = try index.features(in: all, zoom: 12, limit: BaseMapIndex.maximumLimit)
        #expect(near.geoJSON.contains("\"kind\":\"building\""))
        #expect(!far.geoJSON.contains("\"kind\":\"building\""))
        #expect(far.featureCount < near.featureCount / 3)
        #expect(far.geoJSON.utf8.count < near.geoJSON.utf8.count / 3)
    }
}
