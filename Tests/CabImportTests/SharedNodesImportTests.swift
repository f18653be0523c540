import CabBaseMap
import CabGeo
import CabOSM
import CabPlaces
import CabTestSupport
import Foundation
import Testing

@testable import CabImport

/// `cab import` keeps every node's coordinate once (the road builder's table, read by the base map and the place
/// index): what it writes is what the base map and place imports write when each keeps its own nodes.
@Suite struct SharedNodesImportTests {
    @Test func importWithSharedNodesWritesWhatSeparateImportsWrite() throws {
        let map = TestData.sharedExtract("monaco").path
        let root = try TestData.temporaryDirectory("shared-nodes")
        let directory = DataDirectory(path: root.appendingPathComponent("data").path)
        let manifest = try MapImporter.run(mapPath: map, into: directory)

        let baseMapPath = root.appendingPathComponent("alone-basemap.sqlite").path
        let kinds = try BaseMapImport.importFile(pbfPath: map, to: baseMapPath)
        let placesPath = root.appendingPathComponent("alone-places.sqlite").path
        var places = PlaceImport(builder: PlaceIndexBuilder(path: placesPath))
        _ = try PBFReader(path: map).read(into: &places)
        let report = try places.finish()

        #expect(manifest.counts["basemap_features"] == kinds.values.reduce(0, +))
        #expect(manifest.counts["places"] == report.places)
        #expect(report.places > 100)
        #expect(
            try BaseMapIndex(path: directory.baseMapPath).contentFingerprint
                == BaseMapIndex(path: baseMapPath).contentFingerprint)
        let shared = try PlaceIndex(path: directory.placesPath)
        let alone = try PlaceIndex(path: placesPath)
        var found = 0
        for row in 0..<6 {
            for column in 0..<6 {
                let point = Coordinate(
                    latitude: 43.727 + 0.002 * Double(row), longitude: 7.410 + 0.003 * Double(column))
                let answer = try shared.reverse(at: point)
                #expect(answer == (try alone.reverse(at: point)), "\(point)")
                if answer != nil { found += 1 }
            }
        }
        #expect(found > 10)
        #expect(try shared.search("Casino") == (try alone.search("Casino")))
    }
}
