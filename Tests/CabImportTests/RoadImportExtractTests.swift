import CabGeo
import CabOSM
import CabRouting
import CabRoutingBench
import CabTestSupport
import Foundation
import Testing

@testable import CabImport

/// The road graph on every shared extract, with osmium-tool as the oracle for what counts as a road.
@Suite struct RoadImportExtractTests {
    static let highwayFilter = "w/highway=" + TravelProfile.taxi.highwaySpeedsKmh.keys.sorted().joined(separator: ",")

    func importExtract(_ name: String) throws -> (RoadImport, RoadGraph, RoadNetworkBuilder.Report) {
        let path = TestData.sharedExtract(name).path
        var handler = RoadImport(sourceFingerprint: try MapFingerprint.ofFile(atPath: path))
        try PBFReader(path: path).read(into: &handler, options: .init(nodeTags: false))
        let (graph, report) = handler.build()
        return (handler, graph, report)
    }

    @Test(arguments: TestData.sharedExtractNames)
    func countsTheSameRoadsAsOsmium(name: String) throws {
        let (_, _, report) = try importExtract(name)
        let directory = try TestData.temporaryDirectory("roads")
        defer { try? FileManager.default.removeItem(at: directory) }
        let filtered = directory.appendingPathComponent("roads.osm.pbf").path
        _ = try osmium(["tags-filter", TestData.sharedExtract(name).path, Self.highwayFilter, "-o", filtered])
        let info = try osmium(["fileinfo", "-e", "-g", "data.count.ways", filtered])
        let expected = Int(info.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report.highwayClassWays == expected)
    }

    @Test(arguments: TestData.sharedExtractNames)
    func buildsAConnectedGraphWithFiniteRoutes(name: String) throws {
        let (handler, graph, report) = try importExtract(name)
        #expect(graph.nodeCount > 500)
        #expect(graph.largestComponentSize * 10 > graph.nodeCount * 7, "most nodes can reach each other")
        #expect(report.routableWays > report.highwayClassWays * 8 / 10)
        #expect(handler.notes.restrictions == 0 || report.appliedRestrictions > 0)
        let pairs = DijkstraBenchmark.randomPairs(in: graph, count: 100, seed: 3)
        var router = DijkstraRouter(graph: graph)
        for endpoints in pairs {
            let route = try router.route(endpoints)
            #expect(route.distanceMeters.isFinite && route.distanceMeters >= 0)
            #expect(route.durationSeconds < 4 * 3600)
            #expect(route.geometry.count >= 1)
        }
    }

    @Test func refusesAGraphFileBuiltFromAnotherMap() throws {
        let (_, graph, _) = try importExtract("monaco")
        let directory = try TestData.temporaryDirectory("roads")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("roads.graph").path
        try graph.write(to: path)
        let monaco = try MapFingerprint.ofFile(atPath: TestData.sharedExtract("monaco").path)
        let helsinki = try MapFingerprint.ofFile(atPath: TestData.sharedExtract("helsinki").path)
        #expect(try RoadGraph.load(from: path, expectedFingerprint: monaco).edgeCount == graph.edgeCount)
        #expect(throws: RoutingError.self) { try RoadGraph.load(from: path, expectedFingerprint: helsinki) }
    }

    /// Runs osmium-tool and returns its standard output.
    func osmium(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/osmium")
        process.arguments = arguments + (arguments.first == "tags-filter" ? ["--overwrite"] : [])
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "osmium \(arguments.joined(separator: " ")) failed")
        return String(decoding: data, as: UTF8.self)
    }
}
