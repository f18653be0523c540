import Testing

@testable import CabGeo

@Suite struct CoordinateTests {
    @Test func helsinkiToTallinnIsAbout80Kilometres() {
        let helsinki = Coordinate(latitude: 60.1699, longitude: 24.9384)
        let tallinn = Coordinate(latitude: 59.4370, longitude: 24.7536)
        #expect(abs(helsinki.distanceMeters(to: tallinn) - 82_000) < 1_500)
    }

    @Test(arguments: ["60.17,24.94", " 60.17 , 24.94 "])
    func parsesLatLon(_ text: String) throws {
        let c = try #require(Coordinate(parsing: text))
        #expect(c == Coordinate(latitude: 60.17, longitude: 24.94))
    }

    @Test(arguments: ["", "60.17", "a,b", "1,2,3"])
    func rejectsMalformed(_ text: String) {
        #expect(Coordinate(parsing: text) == nil)
    }

    @Test func validity() {
        #expect(!Coordinate(latitude: 91, longitude: 0).isValid)
        #expect(!Coordinate(latitude: .nan, longitude: 0).isValid)
        #expect(Coordinate(latitude: -90, longitude: 180).isValid)
    }

    @Test func polylineRoundTripsAndMatchesGooglesExample() throws {
        let points = [
            Coordinate(latitude: 38.5, longitude: -120.2), Coordinate(latitude: 40.7, longitude: -120.95),
            Coordinate(latitude: 43.252, longitude: -126.453),
        ]
        let encoded = Polyline.encode(points)
        #expect(encoded == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        let decoded = try #require(Polyline.decode(encoded))
        #expect(decoded == points)
        #expect(Polyline.decode("\u{1}") == nil)
    }

    @Test func projectionLandsInTheMiddleOfASegment() {
        let a = Coordinate(latitude: 60.0, longitude: 24.0)
        let b = Coordinate(latitude: 60.0, longitude: 24.01)
        let p = Coordinate(latitude: 60.0001, longitude: 24.005)
        let projection = LocalProjection(referenceLatitude: 60)
        let r = projection.project(p, ontoSegmentFrom: a, to: b)
        #expect(abs(r.fraction - 0.5) < 1e-9)
        #expect(abs(r.distanceMeters - 11.1) < 0.2)
    }
}
