import CabBaseMap
import CabGeo
import CabImport
import CabOSM
import CabTestSupport
import Foundation
import Testing

/// A small hand-made map: a named street (one node clipped away), a building, a lake with an island drawn as a
/// multipolygon from untagged member ways, and a footway.
///
///     n1 ---- n2 ---- (n3 missing) ---- n4 ---- n5     Testikatu (residential)
///     building n10..n13;  lake ring n20..n23 with hole n30..n33
@Suite struct BaseMapImportTests {
    static let origin = Coordinate(latitude: 60.17, longitude: 24.94)

    static func point(_ dx: Double, _ dy: Double) -> Coordinate {
        // dx, dy in units of about 10 m.
        Coordinate(latitude: origin.latitude + dy * 0.00009, longitude: origin.longitude + dx * 0.00018)
    }

    /// Imports the fixture into a fresh file and opens it.
    static func importFixture() throws -> BaseMapIndex {
        let directory = try TestData.temporaryDirectory("basemap")
        let path = directory.appendingPathComponent(BaseMapIndex.fileName).path
        var handler = BaseMapImport(writer: try BaseMapWriter(path: path))
        let nodes: [(Int64, Coordinate)] = [
            (1, point(0, 0)), (2, point(5, 0)), (4, point(15, 0)), (5, point(20, 0)),
            (10, point(2, 2)), (11, point(4, 2)), (12, point(4, 4)), (13, point(2, 4)),
            (20, point(0, 10)), (21, point(20, 10)), (22, point(20, 30)), (23, point(0, 30)),
            (30, point(8, 18)), (31, point(12, 18)), (32, point(12, 22)), (33, point(8, 22)),
            (40, point(0, -2)), (41, point(20, -2)),
        ]
        for (id, c) in nodes { try handler.handle(OSMNode(id: id, coordinate: c)) }
        try handler.handle(
            OSMWay(id: 100, nodeIDs: [1, 2, 3, 4, 5], tags: ["highway": "residential", "name": "Testikatu"]))
        try handler.handle(OSMWay(id: 101, nodeIDs: [10, 11, 12, 13, 10], tags: ["building": "yes"]))
        try handler.handle(OSMWay(id: 102, nodeIDs: [20, 21, 22]))
        try handler.handle(OSMWay(id: 103, nodeIDs: [20, 23, 22]))
        try handler.handle(OSMWay(id: 104, nodeIDs: [30, 31, 32, 33, 30]))
        try handler.handle(OSMWay(id: 105, nodeIDs: [40, 41], tags: ["highway": "footway"]))
        try handler.handle(OSMWay(id: 106, nodeIDs: [40, 41], tags: ["barrier": "fence"]))
        try handler.handle(
            OSMRelation(
                id: 200,
                members: [
                    OSMMember(type: .way, ref: 102, role: "outer"), OSMMember(type: .way, ref: 103, role: "outer"),
                    OSMMember(type: .way, ref: 104, role: "inner"),
                ], tags: ["type": "multipolygon", "natural": "water", "name": "Testijärvi"]))
        try handler.finish()
        return try BaseMapIndex(path: path)
    }

    static let everywhere = BoundingBox(southWest: point(-10, -10), northEast: point(30, 40))

    /// Decodes a query's GeoJSON as a user's browser would.
    static func features(_ index: BaseMapIndex, in box: BoundingBox = everywhere, zoom: Int, limit: Int = 100) throws
        -> [[String: Any]]
    {
        let collection = try index.features(in: box, zoom: zoom, limit: limit)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(collection.geoJSON.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == collection.featureCount)
        return features
    }

    static func properties(_ feature: [String: Any]) -> [String: String] {
        (feature["properties"] as? [String: String]) ?? [:]
    }

    @Test func closeZoomServesEveryKindWithNamesAndCutsClippedLines() throws {
        let index = try Self.importFixture()
        let features = try Self.features(index, zoom: 17)
        let kinds = features.map { Self.properties($0)["kind"] ?? "?" }.sorted()
        #expect(kinds == ["building", "road", "road", "water"])
        let street = try #require(features.first { Self.properties($0)["name"] == "Testikatu" })
        #expect(Self.properties(street)["class"] == "residential")
        let geometry = try #require(street["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "MultiLineString", "the missing node n3 cuts the street in two")
        #expect((geometry["coordinates"] as? [Any])?.count == 2)
        #expect(try index.countsByKind() == [.road: 2, .building: 1, .water: 1])
    }

    @Test func multipolygonIsAssembledFromMemberWaysWithItsHole() throws {
        let index = try Self.importFixture()
        let lake = try #require(try Self.features(index, zoom: 16).first { Self.properties($0)["kind"] == "water" })
        #expect(Self.properties(lake)["name"] == "Testijärvi")
        let geometry = try #require(lake["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Polygon")
        let rings = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(rings.count == 2)
        #expect(rings[0].count == 5 && rings[0].first == rings[0].last)
    }

    @Test func farZoomLeavesOutBuildingsAndFootways() throws {
        let index = try Self.importFixture()
        let classes = try Self.features(index, zoom: 14).map { Self.properties($0)["class"] ?? "?" }.sorted()
        #expect(classes == ["residential", "water"])
        // Residential streets from zoom 14: at 13 only main roads (none here) and the lake.
        #expect(try Self.features(index, zoom: 13).map { Self.properties($0)["class"] ?? "?" } == ["water"])
        #expect(try Self.features(index, zoom: 10).isEmpty, "a 360 m lake and a side street are too small at zoom 10")
    }

    @Test func boxAwayFromEverythingIsEmpty() throws {
        let index = try Self.importFixture()
        let box = BoundingBox(southWest: Self.point(100, 100), northEast: Self.point(110, 110))
        #expect(try Self.features(index, in: box, zoom: 17).isEmpty)
    }

    @Test func capKeepsTheMostImportantAndSaysItTruncated() throws {
        let index = try Self.importFixture()
        let collection = try index.features(in: Self.everywhere, zoom: 17, limit: 2)
        #expect(collection.truncated)
        #expect(collection.featureCount == 2)
        #expect(collection.geoJSON.contains("\"kind\":\"water\"") && collection.geoJSON.contains("Testikatu"))
        #expect(!collection.geoJSON.contains("\"kind\":\"building\""))
        #expect(!(try index.features(in: Self.everywhere, zoom: 17, limit: 100)).truncated)
    }

    @Test func tagsMapToStyles() {
        #expect(BaseMapImport.style(of: ["highway": "primary_link"])?.featureClass == "primary")
        #expect(BaseMapImport.style(of: ["highway": "bus_stop"]) == nil)
        #expect(BaseMapImport.style(of: ["building": "no"]) == nil)
        #expect(BaseMapImport.style(of: ["leisure": "park"])?.kind == .green)
        #expect(BaseMapImport.style(of: ["natural": "coastline"])?.isArea == false)
        #expect(BaseMapImport.style(of: ["railway": "subway", "tunnel": "yes"]) == nil)
    }
}
