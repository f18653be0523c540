import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabOSM

/// Exact decoding of small files encoded in the test: negative deltas, tags, relations, scaling, headers.
@Suite struct PBFReaderHandBuiltTests {
    static let strings = [
        "", "highway", "residential", "name", "Straße", "from", "via", "to", "type", "restriction", "no_left_turn",
        "amenity", "taxi",
    ]

    /// Dense nodes 10, 8, 15 (negative id and coordinate deltas), a plain node, a way, a restriction relation;
    /// then a second block with its own granularity and offsets.
    static let sample: [UInt8] = PBFFixture.file(
        header: PBFFixture.headerBlock(
            optional: ["Sort.Type_then_ID"],
            boundingBoxNanodegrees: (9_000_000_000, 10_000_000_000, 48_000_000_000, 47_000_000_000)),
        blocks: [
            PBFFixture.block(strings: strings) { block in
                block.message(2) { group in
                    group.message(2) { dense in
                        dense.packedDeltas(1, [10, 8, 15])
                        dense.packedDeltas(8, [470_000_000, 469_999_990, 470_000_010])
                        dense.packedDeltas(9, [-1_000_000, -1_000_005, 95_000_000])
                        dense.packed(10, [0, 11, 12, 0, 0])
                    }
                }
                block.message(2) { group in
                    group.message(1) { node in
                        node.sint(1, -3)
                        node.packed(2, [3])
                        node.packed(3, [4])
                        node.sint(8, -1)
                        node.sint(9, 1)
                    }
                }
                block.message(2) { group in
                    group.message(3) { way in
                        way.int(1, 100)
                        way.packed(2, [1, 3])
                        way.packed(3, [2, 4])
                        way.packedDeltas(8, [10, 8, 15, 999_999])
                    }
                    group.message(4) { relation in
                        relation.int(1, 7)
                        relation.packed(2, [8, 9])
                        relation.packed(3, [9, 10])
                        relation.packed(8, [5, 6, 7])
                        relation.packedDeltas(9, [100, 8, 101])
                        relation.packed(10, [1, 0, 1])
                    }
                }
            },
            PBFFixture.block(strings: [""], granularity: 1000, latOffset: 5000, lonOffset: -7000) { block in
                block.message(2) { group in
                    group.message(2) { dense in
                        dense.packedDeltas(1, [20])
                        dense.packedDeltas(8, [1000])
                        dense.packedDeltas(9, [2000])
                    }
                }
            },
        ])

    /// Writes `bytes` to a fresh temporary file, runs `body` with its path, and removes it.
    static func withFile<R>(_ bytes: [UInt8], _ body: (String) throws -> R) throws -> R {
        let directory = try TestData.temporaryDirectory("osm")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("fixture.osm.pbf")
        try Data(bytes).write(to: url)
        return try body(url.path)
    }

    @Test func decodesEveryElementExactly() throws {
        var collector = ElementCollector()
        let summary = try Self.withFile(Self.sample) { try PBFReader(path: $0).read(into: &collector) }
        #expect(summary == PBFReadSummary(blobs: 2, nodes: 5, ways: 1, relations: 1))
        #expect(collector.nodes.map(\.id) == [10, 8, 15, -3, 20])
        #expect(collector.nodes.map(\.tags) == [[:], ["amenity": "taxi"], [:], ["name": "Straße"], [:]])
        let fixed = collector.nodes.map { [OPLElement.fixed($0.coordinate.latitude), OPLElement.fixed($0.coordinate.longitude)] }
        #expect(fixed == [[470_000_000, -1_000_000], [469_999_990, -1_000_005], [470_000_010, 95_000_000], [-1, 1]] + [[10_050, 19_930]])
        #expect(collector.ways == [OSMWay(id: 100, nodeIDs: [10, 8, 15, 999_999], tags: ["highway": "residential", "name": "Straße"])])
        #expect(
            collector.relations == [
                OSMRelation(
                    id: 7,
                    members: [
                        OSMMember(type: .way, ref: 100, role: "from"), OSMMember(type: .node, ref: 8, role: "via"),
                        OSMMember(type: .way, ref: 101, role: "to"),
                    ],
                    tags: ["type": "restriction", "restriction": "no_left_turn"])
            ])
    }

    @Test func readsTheHeader() throws {
        let header = try Self.withFile(Self.sample) { try PBFReader(path: $0).header }
        #expect(header.requiredFeatures == ["OsmSchema-V0.6", "DenseNodes"])
        #expect(header.optionalFeatures == ["Sort.Type_then_ID"])
        #expect(header.writingProgram == "cab-test")
        #expect(
            header.boundingBox
                == BoundingBox(
                    southWest: Coordinate(latitude: 47, longitude: 9), northEast: Coordinate(latitude: 48, longitude: 10)))
    }

    /// The fixture encoder agrees with osmium, so the exact expectations above test the reader, not the encoder.
    @Test func osmiumReadsTheSampleTheSameWay() throws {
        let lines = try Self.withFile(Self.sample) { try Osmium.opl(URL(fileURLWithPath: $0)) }
        #expect(lines.first == "n10 T x-0.1 y47")
        #expect(lines.contains("n8 Tamenity=taxi x-0.1000005 y46.999999"))
        #expect(lines.contains("n20 T x0.001993 y0.001005"))
        #expect(lines.contains("w100 Thighway=residential,name=Straße Nn10,n8,n15,n999999"))
        #expect(lines.contains("r7 Ttype=restriction,restriction=no_left_turn Mw100@from,n8@via,w101@to"))
    }
}
