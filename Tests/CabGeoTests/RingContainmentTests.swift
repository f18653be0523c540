import CabGeo
import Testing

@Suite struct RingContainmentTests {
    static func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// An L-shaped (concave) ring: the notch at the top right is outside.
    static let ell = [c(0, 0), c(0, 2), c(1, 2), c(1, 1), c(2, 1), c(2, 0)]

    @Test(arguments: [true, false])
    func pointsInAConcaveRingOpenOrClosed(closed: Bool) {
        let ring = closed ? Self.ell + [Self.ell[0]] : Self.ell
        #expect(ring.ringContains(Self.c(0.5, 0.5)))
        #expect(ring.ringContains(Self.c(0.5, 1.5)))
        #expect(ring.ringContains(Self.c(1.5, 0.5)))
        #expect(!ring.ringContains(Self.c(1.5, 1.5)))  // the notch
        #expect(!ring.ringContains(Self.c(-0.5, 0.5)))
        #expect(!ring.ringContains(Self.c(0.5, 2.5)))
    }

    @Test func aRingOfFewerThanThreePointsContainsNothing() {
        #expect(![Coordinate]().ringContains(Self.c(0, 0)))
        #expect(![Self.c(0, 0), Self.c(1, 1)].ringContains(Self.c(0.5, 0.5)))
    }
}
