import CabGeo
import Testing

@testable import CabBaseMap

@Suite struct GeometryTests {
    @Test func douglasPeuckerDropsNearlyStraightPointsAndKeepsCorners() {
        let a = Coordinate(latitude: 60.0, longitude: 24.0)
        let nearlyStraight = Coordinate(latitude: 60.00001, longitude: 24.005)  // ~1 m off the line
        let b = Coordinate(latitude: 60.0, longitude: 24.01)
        let corner = Coordinate(latitude: 60.01, longitude: 24.01)  // ~1.1 km north
        let simplified = Simplification.douglasPeucker([a, nearlyStraight, b, corner], toleranceMeters: 5)
        #expect(simplified == [a, b, corner])
        #expect(Simplification.douglasPeucker([a, nearlyStraight, b], toleranceMeters: 0).count == 3)
    }

    @Test func ringsJoinReversedPiecesAndCloseClippedOnes() {
        #expect(RingAssembly.rings(from: [[1, 2, 3], [1, 4, 3]]) == [[1, 2, 3, 4, 1]])
        #expect(RingAssembly.rings(from: [[1, 2, 3, 4]]) == [[1, 2, 3, 4, 1]])
        #expect(RingAssembly.rings(from: [[1, 2]]).isEmpty)
    }

    @Test func fixedPointTextIsShortAndExact() {
        func text(_ v: Double) -> String {
            var out: [UInt8] = []
            GeoJSONText.appendFixed6(v, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(text(24.9384) == "24.9384")
        #expect(text(-0.0000015) == "-0.000002")
        #expect(text(60) == "60")
        #expect(text(-76.000105) == "-76.000105")
        #expect(GeoJSONText.quoted("A \"b\"\n\\") == #""A \"b\"\n\\""#)
    }
}
