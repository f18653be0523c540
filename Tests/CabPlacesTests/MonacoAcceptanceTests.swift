import CabGeo
import Testing

@testable import CabPlaces

private func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

/// Focus points: Port Hercule (near the shop called "Casino", 800 m from the casino), and Fontvieille.
private let port = c(43.7347, 7.4228)
private let fontvieille = c(43.7283, 7.4160)
private let casino = c(43.73936, 7.42857)
private let palace = c(43.73136, 7.42007)

/// Another city, language and script of street names (Monaco, French): famous places first for their common
/// name, unaccented and misspelt queries, English names, streets, reverse geocoding.
@Suite struct MonacoAcceptanceTests {
    static let forward: [ForwardCase] = [
        // famous places first for their common name, not the shop or bus stop of that name
        .init(query: "casino", expected: "Casino de Monte Carlo", at: casino),
        .init(query: "casino", near: port, expected: "Casino de Monte Carlo", at: casino),
        .init(query: "casino", near: fontvieille, expected: "Casino de Monte Carlo", at: casino),
        .init(query: "casnio", expected: "Casino de Monte Carlo", at: casino),
        .init(query: "casnio", near: port, expected: "Casino de Monte Carlo", at: casino),
        .init(query: "casin", expected: "Casino de Monte Carlo", at: casino),
        .init(query: "Casino de Monte-Carlo", expected: "Casino de Monte Carlo", at: casino),
        .init(query: "monte carlo casino", expected: "Casino de Monte Carlo", at: casino),
        .init(query: "palais princier", expected: "Palais Princier de Monaco", at: palace),
        .init(query: "palais princer", expected: "Palais Princier de Monaco", at: palace),
        .init(query: "monte carlo", expected: "Monte-Carlo", at: c(43.7403, 7.4266), maxDistanceMeters: 1000),
        .init(query: "gare monaco", expected: "Monaco - Monte Carlo", at: c(43.7382, 7.4196)),
        // unaccented and misspelt
        .init(query: "cathedrale", expected: "Cathédrale Notre-Dame-Immaculée", at: c(43.7303, 7.4230)),
        .init(query: "oceanografique", expected: "Musée Océanographique", at: c(43.7307, 7.4254)),
        // streets
        .init(
            query: "avenue princesse grace", expected: "Avenue Princesse Grace", at: c(43.7440, 7.4330),
            maxDistanceMeters: 1500),
        .init(
            query: "boulevard du larvoto", expected: "Boulevard du Larvotto", at: c(43.7460, 7.4350),
            maxDistanceMeters: 1500),
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

    @Test func theCasinoIsACasinoInMonteCarloWithItsTaxiRank() throws {
        let top = try #require(try ExtractIndexFixture.monaco.index.search("casino").first)
        #expect(top.category == "casino")
        #expect(top.area == "Monte-Carlo, Monaco")
        let pickup = try #require(top.pickup)
        #expect(pickup.kind == "taxi")
        #expect(pickup.coordinate.distanceMeters(to: top.coordinate) < 250)
        let shop = try #require(
            try ExtractIndexFixture.monaco.index.search("casino", limit: 10).first { $0.name == "Casino" })
        #expect(shop.category == "convenience store")
        #expect(shop.importance < top.importance / 2)
    }

    @Test func reverseNamesTheCasinoAndThePalace() throws {
        let index = ExtractIndexFixture.monaco.index
        #expect(try index.reverse(at: c(43.7394, 7.4283))?.name == "Casino de Monte Carlo")
        #expect(try index.reverse(at: palace)?.name == "Palais Princier de Monaco")
    }

    @Test func reverseNamesTheHotelAndNothingOutAtSea() throws {
        let index = ExtractIndexFixture.monaco.index
        let hotel = try index.reverse(at: Coordinate(latitude: 43.73875, longitude: 7.42700))
        #expect(hotel?.name == "Hôtel de Paris", "got \(String(describing: hotel?.name))")
        #expect(try index.reverse(at: Coordinate(latitude: 43.70, longitude: 7.45)) == nil)
    }
}
