import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabRouting

/// What `cab serve` loads at start-up, against what the import had in memory: the graph file's stored snapper grid
/// and fingerprint, the mapped routing index, and the refusals of damaged or old files.
@Suite struct MappedFileTests {
    func scratchPath(_ name: String) throws -> String {
        try TestData.temporaryDirectory("mapped").appendingPathComponent(name).path
    }

    /// A snapper reading the grid stored in the graph file snaps every point exactly as one built afresh: same
    /// piece, segment, fraction, point and distance, one by one and in a batch, near roads and far from them.
    @Test(arguments: ["monaco", "baltimore"])
    func storedSnapperGridSnapsLikeAFreshOne(name: String) throws {
        let extract = SharedExtractGraph.named(name)
        let path = try scratchPath("\(name).graph")
        try extract.graph.write(to: path)
        let loaded = try RoadGraph.load(from: path, expectedFingerprint: extract.graph.sourceFingerprint)
        #expect(loaded.storedSnapperGrid != nil)
        let stored = Snapper(graph: loaded)
        let fresh = Snapper(graph: extract.graph)
        #expect(extract.graph.storedSnapperGrid == nil)
        var random = SplitMix64(seed: 41)
        let near = extract.pointsNearRoads(count: 400, seed: 40)
        let far = near.prefix(100).map {
            Coordinate(
                latitude: $0.latitude + 0.02 * (random.nextDouble() - 0.5),
                longitude: $0.longitude + 0.02 * (random.nextDouble() - 0.5))
        }
        let points = near + far + [Coordinate(latitude: 0, longitude: 0)]
        var snapped = 0
        for point in points {
            let a = try? fresh.snap(point)
            let b = try? stored.snap(point)
            #expect(a == b, "\(point) in \(name)")
            if a != nil { snapped += 1 }
        }
        #expect(snapped >= 400)
        #expect(fresh.snap(points) == stored.snap(points))
    }

    /// The graph loaded from its file answers the same routes as the graph the import built, with the fast
    /// router and with Dijkstra, and its stored fingerprint is the one computed from its edges.
    @Test func loadedGraphAnswersTheSameRoutes() throws {
        let extract = SharedExtractGraph.named("monaco")
        let path = try scratchPath("monaco-routes.graph")
        try extract.graph.write(to: path)
        let loaded = try RoadGraph.load(from: path)
        var recomputed = loaded
        recomputed.storedContractionFingerprint = nil
        #expect(loaded.contractionFingerprint == extract.graph.contractionFingerprint)
        #expect(recomputed.contractionFingerprint == loaded.contractionFingerprint)
        let indexPath = try scratchPath("monaco-routes.ch")
        try extract.index.write(to: indexPath)
        let index = try FastRouterIndex.load(from: indexPath, expectedFingerprint: loaded.contractionFingerprint)
        let before = FastRouter(index: extract.index, graph: extract.graph)
        let after = FastRouter(index: index, graph: loaded)
        var dijkstraBefore = DijkstraRouter(graph: extract.graph)
        var dijkstraAfter = DijkstraRouter(graph: loaded)
        let points = extract.pointsNearRoads(count: 60, seed: 42)
        let snapper = Snapper(graph: loaded)
        var routed = 0
        for (start, end) in zip(points, points.dropFirst()) {
            let endpoints = try snapper.endpoints(from: start, to: end)
            let expected = try? before.route(try extract.snapper.endpoints(from: start, to: end))
            let route = try? after.route(endpoints)
            #expect(route == expected)
            #expect((try? dijkstraAfter.route(endpoints)) == (try? dijkstraBefore.route(endpoints)))
            if route != nil { routed += 1 }
        }
        #expect(routed >= 50)
    }

    /// A graph file cut short or with one byte changed anywhere is refused with a message saying to import again;
    /// so is a graph file of the format before this one (version 3, read by the previous release).
    @Test func damagedOrOldGraphFilesAreRefused() throws {
        let extract = SharedExtractGraph.named("monaco")
        let path = try scratchPath("monaco-damaged.graph")
        try extract.graph.write(to: path)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [12, 100, whole.count / 2, whole.count - 1] {
            try whole.prefix(cut).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
            #expect(error?.code == .corruptFile)
            #expect(error?.message.contains("run `cab import` again") == true)
        }
        for offset in [40, whole.count / 3, whole.count * 9 / 10, whole.count - 9] {
            var damaged = whole
            damaged[offset] ^= 0x10
            try damaged.write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
            #expect(error?.code == .corruptFile)
            #expect(error?.message.contains("checksum") == true)
        }
        var old = whole
        old[8] = 3
        try old.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: RoutingError.self) { try RoadGraph.load(from: path) }
        #expect(error?.code == .wrongVersion)
        #expect(error?.message.contains("run `cab import` again") == true)
    }

    /// An index file with one byte changed is refused by its checksum; one of version 5 (the previous release's) by
    /// its version, with the same advice.
    @Test func damagedOrOldIndexFilesAreRefused() throws {
        let extract = SharedExtractGraph.named("monaco")
        let fingerprint = extract.graph.contractionFingerprint
        let bytes = extract.index.fileBytes()
        for offset in [60, bytes.count / 2, bytes.count - 20] {
            var damaged = bytes
            damaged[offset] ^= 0x01
            let error = #expect(throws: RoutingError.self) {
                try FastRouterIndex(fileBytes: damaged, expectedFingerprint: fingerprint)
            }
            #expect(error?.code == .corruptFile)
            #expect(error?.message.contains("run `cab import` again") == true)
        }
        var old = bytes
        old[8] = 5
        let error = #expect(throws: RoutingError.self) {
            try FastRouterIndex(fileBytes: old, expectedFingerprint: fingerprint)
        }
        #expect(error?.code == .wrongVersion)
        #expect(try FastRouterIndex(fileBytes: bytes, expectedFingerprint: fingerprint).fileBytes() == bytes)
    }

    /// The checksum does not depend on how the bytes were split into calls.
    @Test func checksumIgnoresHowBytesArrive() {
        var random = SplitMix64(seed: 9)
        let bytes = (0..<1000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var whole = FileChecksum()
        bytes.withUnsafeBytes { whole.add($0) }
        var pieces = FileChecksum()
        var at = 0
        for size in [1, 3, 31, 32, 33, 100, 7, 500] {
            bytes[at..<min(at + size, bytes.count)].withUnsafeBytes { pieces.add($0) }
            at = min(at + size, bytes.count)
        }
        bytes[at...].withUnsafeBytes { pieces.add($0) }
        #expect(whole.value == pieces.value)
        var changed = bytes
        changed[999] ^= 1
        var other = FileChecksum()
        changed.withUnsafeBytes { other.add($0) }
        #expect(other.value != whole.value)
    }
}
