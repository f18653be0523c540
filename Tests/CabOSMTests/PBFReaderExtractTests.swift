import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabOSM

/// The reader on the real extracts in ../shared/data, checked element by element against osmium.
@Suite struct PBFReaderExtractTests {
    @Test(arguments: TestData.sharedExtractNames)
    func countsMatchOsmium(_ name: String) throws {
        let file = TestData.sharedExtract(name)
        let reader = try PBFReader(path: file.path)
        var counter = ElementCounter()
        let summary = try reader.read(into: &counter)
        let expected = try Osmium.counts(file)
        #expect(Osmium.Counts(nodes: counter.nodes, ways: counter.ways, relations: counter.relations) == expected)
        #expect(summary.nodes == expected.nodes && summary.ways == expected.ways)
        #expect(summary.relations == expected.relations)
    }

    @Test(arguments: TestData.sharedExtractNames)
    func everyElementMatchesOsmiumOPL(_ name: String) throws {
        let file = TestData.sharedExtract(name)
        var collector = ElementCollector()
        try PBFReader(path: file.path).read(into: &collector)
        let lines = try Osmium.opl(file)
        try #require(lines.count == collector.nodes.count + collector.ways.count + collector.relations.count)
        // Compare in file order per type (baltimore stores its relations before its ways).
        var mismatches: [String] = []
        var seen: [OSMElementType: Int] = [:]
        for line in lines where mismatches.count < 5 {
            let expected = try #require(OPLElement(line))
            let index = seen[expected.type, default: 0]
            seen[expected.type] = index + 1
            if let problem = Self.compare(expected, index: index, with: collector) {
                mismatches.append("\(problem)\n  osmium: \(line.prefix(300))")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// Compares the `index`th element of its type with what the reader gave.
    static func compare(_ expected: OPLElement, index: Int, with actual: ElementCollector) -> String? {
        switch expected.type {
        case .node:
            let node = actual.nodes[index]
            let lon = OPLElement.fixed(node.coordinate.longitude)
            let lat = OPLElement.fixed(node.coordinate.latitude)
            guard node.id == expected.id, node.tags == expected.tags, lon == expected.fixedLongitude,
                lat == expected.fixedLatitude
            else { return "node \(node.id) \(node.coordinate) \(node.tags)" }
        case .way:
            let way = actual.ways[index]
            guard way.id == expected.id, way.nodeIDs == expected.nodeIDs, way.tags == expected.tags else {
                return "way \(way.id) \(way.nodeIDs) \(way.tags)"
            }
        case .relation:
            let relation = actual.relations[index]
            guard relation.id == expected.id, relation.members == expected.members, relation.tags == expected.tags
            else { return "relation \(relation.id) \(relation.members) \(relation.tags)" }
        }
        return nil
    }

    @Test func knownElementsOfMonaco() throws {
        var collector = ElementCollector()
        try PBFReader(path: TestData.sharedExtract("monaco").path).read(into: &collector)
        let node = try #require(collector.nodes.first { $0.id == 21_911_863 })
        #expect(OPLElement.fixed(node.coordinate.latitude) == 437_370_125)
        #expect(OPLElement.fixed(node.coordinate.longitude) == 74_220_280)
        let way = try #require(collector.ways.first { $0.id == 4_097_656 })
        #expect(way.tags == ["name": "Avenue Princesse Alice", "lanes": "2", "oneway": "yes", "highway": "primary"])
        #expect(way.nodeIDs.prefix(3) == [21_912_089, 1_079_750_744, 2_104_793_864])
        #expect(way.nodeIDs.count == 9)
    }

    @Test func headerOfLiechtenstein() throws {
        let reader = try PBFReader(path: TestData.sharedExtract("liechtenstein-latest").path)
        #expect(reader.header.requiredFeatures == ["OsmSchema-V0.6", "DenseNodes"])
        #expect(reader.header.writingProgram?.hasPrefix("Osmium") == true)
        let box = try #require(reader.header.boundingBox)
        #expect(OPLElement.fixed(box.southWest.latitude) == 470_477_400)
        #expect(OPLElement.fixed(box.northEast.longitude) == 96_362_170)
        #expect(reader.fileSize == 1_323_403)
    }

    @Test func optionsSkipWhatIsNotWanted() throws {
        let reader = try PBFReader(path: TestData.sharedExtract("helsinki").path)
        var all = ElementCollector()
        try reader.read(into: &all)
        var waysOnly = ElementCollector()
        try reader.read(into: &waysOnly, options: .init(nodes: false, relations: false))
        #expect(waysOnly.nodes.isEmpty && waysOnly.relations.isEmpty)
        #expect(waysOnly.ways == all.ways)
        var untaggedNodes = ElementCollector()
        try reader.read(into: &untaggedNodes, options: .init(nodeTags: false, ways: false, relations: false))
        #expect(untaggedNodes.nodes.count == all.nodes.count)
        #expect(untaggedNodes.nodes.allSatisfy { $0.tags.isEmpty })
        #expect(untaggedNodes.nodes.map(\.coordinate) == all.nodes.map(\.coordinate))
        #expect(all.nodes.contains { !$0.tags.isEmpty })
    }

    @Test func progressRisesToTheFileSize() throws {
        let reader = try PBFReader(path: TestData.sharedExtract("baltimore").path)
        var counter = ElementCounter()
        var reports: [(Int, Int)] = []
        try reader.read(into: &counter) { done, total in reports.append((done, total)) }
        #expect(reports.count > 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 < $1.0 })
        #expect(reports.last?.0 == reader.fileSize)
        #expect(reports.allSatisfy { $0.1 == reader.fileSize })
    }

    @Test func handlerErrorsStopTheReadUnchanged() throws {
        struct Stop: Error {}
        struct StopAtFirstWay: OSMElementHandler {
            var nodes = 0
            mutating func handle(_ node: OSMNode) throws { nodes += 1 }
            mutating func handle(_ way: OSMWay) throws { throw Stop() }
            mutating func handle(_ relation: OSMRelation) throws {}
        }
        var handler = StopAtFirstWay()
        #expect(throws: Stop.self) { try PBFReader(path: TestData.sharedExtract("helsinki").path).read(into: &handler) }
        #expect(handler.nodes == 24_260)
    }

    @Test func missingFileIsAnIOError() throws {
        let error = #expect(throws: OSMError.self) { try PBFReader(path: "/nonexistent/map.osm.pbf") }
        #expect(error?.code == .io)
        #expect(error?.message.contains("/nonexistent/map.osm.pbf") == true)
    }
}
