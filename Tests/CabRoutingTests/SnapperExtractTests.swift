import CabGeo
import CabTestSupport
import Testing

@testable import CabRouting

/// The snapping grid against a linear scan of every road segment on the real extracts: same nearest point.
@Suite struct SnapperExtractTests {
    @Test(arguments: TestData.sharedExtractNames)
    func snapsToTheNearestSegmentOfALinearScan(name: String) throws {
        let extract = SharedExtractGraph.named(name)
        let graph = extract.graph
        let projection = LocalProjection(referenceLatitude: BoundingBox(enclosing: graph.coordinates)!.center.latitude)
        var segments: [Int] = []
        for piece in 0..<graph.pieceCount where graph.pieceIsInLargestComponent(piece) {
            segments.append(contentsOf: graph.coordinateRange(ofPiece: piece).dropLast())
        }
        // Near roads (the usual case) and up to ~400 m away (rings beyond the first).
        let near = extract.pointsNearRoads(count: 300, seed: 5)
        var random = SplitMix64(seed: 6)
        let far = extract.pointsNearRoads(count: 100, seed: 7).map {
            Coordinate(
                latitude: $0.latitude + 0.007 * (random.nextDouble() - 0.5),
                longitude: $0.longitude + 0.007 * (random.nextDouble() - 0.5))
        }
        for point in near + far {
            var nearest = Double.infinity
            for s in segments {
                let hit = projection.project(point, ontoSegmentFrom: graph.coordinates[s], to: graph.coordinates[s + 1])
                nearest = min(nearest, hit.distanceMeters)
            }
            guard nearest <= extract.snapper.maxDistanceMeters else {
                #expect(throws: RoutingError.self) { try extract.snapper.snap(point) }
                continue
            }
            let snapped = try extract.snapper.snap(point)
            #expect(abs(snapped.distanceMeters - nearest) < 1e-6, "\(point) in \(name)")
            #expect(snapped.fraction >= 0 && snapped.fraction <= 1)
        }
    }

    @Test(arguments: ["monaco", "baltimore"])
    func driversByCoordinateEqualDriversSnappedFirst(name: String) throws {
        let extract = SharedExtractGraph.named(name)
        let router = FastRouter(index: extract.index, graph: extract.graph)
        var drivers = extract.pointsNearRoads(count: 30, seed: 12)
        drivers.append(Coordinate(latitude: 0, longitude: 0))  // off the map: no ETA
        let pickup = extract.pointsNearRoads(count: 1, seed: 13)[0]
        let byCoordinate = try router.durationsMilliseconds(from: drivers, to: pickup, snappingWith: extract.snapper)
        let snapped = drivers.dropLast().map { try? extract.snapper.snap($0) }.compactMap { $0 }
        let expected = router.durationsMilliseconds(from: snapped, to: try extract.snapper.snap(pickup))
        #expect(byCoordinate == expected + [nil])
        #expect(byCoordinate.dropLast().allSatisfy { $0 != nil })
    }
}
