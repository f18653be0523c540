import CabGeo
import Testing

@testable import CabPlaces

@Suite struct PlaceReverseTests {
    let index = SmallIndexFixture.index
    func point(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    @Test func namesThePOIAtTheSpot() throws {
        let hit = try #require(try index.reverse(at: point(60.16823, 24.94732)))
        #expect(hit.name == "Hotel Kämp")
        #expect((hit.distanceMeters ?? 100) < 5)
    }

    @Test func aTapInsideABuildingNamesTheBuilding() throws {
        let hit = try #require(try index.reverse(at: point(60.1685, 24.9412)))
        #expect(hit.name == "Stockmann")
        #expect(hit.distanceMeters == 0)
    }

    @Test func aTapInAParkNamesThePark() throws {
        let hit = try #require(try index.reverse(at: point(60.1675, 24.9470)))
        #expect(hit.name == "Esplanadin puisto")
    }

    @Test func otherwiseNamesTheNearestStreetWithItsDistance() throws {
        let hit = try #require(try index.reverse(at: point(60.1695, 24.9470)))
        #expect(hit.name == "Aleksanterinkatu")
        #expect(hit.kind == .street)
        let distance = try #require(hit.distanceMeters)
        #expect(distance > 40 && distance < 150)
    }

    @Test func farFromAllDataIsNil() throws {
        #expect(try index.reverse(at: point(60.30, 24.60)) == nil)
        #expect(try index.reverse(at: point(0, 0)) == nil)
    }
}
