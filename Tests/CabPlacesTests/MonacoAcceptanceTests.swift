import CabGeo
import Testing

@testable import CabPlaces

/// A few cases on another city, language and script of street names (Monaco, French).
@Suite struct MonacoAcceptanceTests {
    static let forward: [ForwardCase] = [
        .init(
            query: "hotel de paris", expected: "Hôtel de Paris", at: Coordinate(latitude: 43.7388, longitude: 7.4270),
            maxDistanceMeters: 150),
        .init(
            query: "musee oceanographique", expected: "Musée Océanographique",
            at: Coordinate(latitude: 43.7307, longitude: 7.4254), maxDistanceMeters: 150),
        .init(
            query: "oceanographic museum", expected: "Musée Océanographique",
            at: Coordinate(latitude: 43.7307, longitude: 7.4254), maxDistanceMeters: 150),
        .init(
            query: "stade louis", expected: "Stade Louis II", at: Coordinate(latitude: 43.7276, longitude: 7.4155),
            maxDistanceMeters: 300),
        .init(
            query: "stade luis II", expected: "Stade Louis II", at: Coordinate(latitude: 43.7276, longitude: 7.4155),
            maxDistanceMeters: 300),
    ]

    @Test(arguments: forward)
    func forwardSearch(_ test: ForwardCase) throws {
        let results = try ExtractIndexFixture.monaco.index.search(test.query, near: test.near, limit: 10)
        let rank = results.firstIndex {
            $0.name == test.expected && $0.coordinate.distanceMeters(to: test.at) <= test.maxDistanceMeters
        }
        #expect(
            rank.map { $0 < test.within } == true,
            "got \(results.prefix(5).map { "\($0.name) @\(Int($0.coordinate.distanceMeters(to: test.at)))m" })")
    }

    @Test func reverseNamesTheHotelAndNothingOutAtSea() throws {
        let index = ExtractIndexFixture.monaco.index
        let hotel = try index.reverse(at: Coordinate(latitude: 43.73875, longitude: 7.42700))
        #expect(hotel?.name == "Hôtel de Paris", "got \(String(describing: hotel?.name))")
        #expect(try index.reverse(at: Coordinate(latitude: 43.70, longitude: 7.45)) == nil)
    }
}
