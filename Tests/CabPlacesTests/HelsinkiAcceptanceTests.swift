import CabGeo
import Testing

@testable import CabPlaces

/// One forward case in the Pelias fuzzy-tester style: the query, a focus point (or none), the expected name,
/// the rank it must reach, and how far from the expected spot the result may be.
struct ForwardCase: CustomTestStringConvertible, Sendable {
    var query: String
    var near: Coordinate?
    var expected: String
    var within: Int = 1
    var at: Coordinate
    var maxDistanceMeters: Double = 150
    var testDescription: String { "\"\(query)\" → \(expected)" }
}

/// One reverse case: the tapped point, the expected name (nil: nothing), the largest acceptable distance.
struct ReverseCase: CustomTestStringConvertible, Sendable {
    var lat: Double
    var lon: Double
    var expected: String?
    var maxDistanceMeters: Double = 40
    var testDescription: String { "(\(lat), \(lon)) → \(expected ?? "nothing")" }
}

private func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

/// Focus points: the railway station square, the Market Square, Kamppi.
private let station = c(60.1712, 24.9430)
private let market = c(60.1675, 24.9525)
private let kamppi = c(60.1685, 24.9370)

private let stockmann = c(60.1685, 24.9417)
private let kauppahalli = c(60.1663, 24.9527)

@Suite struct HelsinkiAcceptanceTests {
    static let forward: [ForwardCase] = [
        // names and prefixes as typed
        .init(query: "stockmann", expected: "Stockmann", at: stockmann),
        .init(query: "Stockm", expected: "Stockmann", at: stockmann),
        .init(query: "vanha kauppahal", expected: "Vanha Kauppahalli", at: kauppahalli),
        .init(query: "vanha k", expected: "Vanha Kauppahalli", within: 3, at: kauppahalli),
        .init(query: "kiasma", expected: "Kiasma", at: c(60.1720, 24.9370)),
        .init(query: "atene", expected: "Ateneum", within: 2, at: c(60.1699, 24.9440)),
        .init(query: "amos rex", expected: "Amos Rex", at: c(60.1703, 24.9369)),
        .init(query: "hotelli torni", expected: "Hotelli Torni", at: c(60.1673, 24.9385)),
        .init(query: "havis amanda", expected: "Havis Amanda", at: c(60.16759, 24.95140), maxDistanceMeters: 20),
        .init(query: "scandic paasi", expected: "Scandic Paasi", at: c(60.17858, 24.94793), maxDistanceMeters: 30),
        .init(query: "senaatintori", expected: "Senaatintori", at: c(60.1693, 24.9522), maxDistanceMeters: 200),
        .init(query: "kauppatori", expected: "Kauppatori", at: market, maxDistanceMeters: 250),
        .init(
            query: "rautatientori", near: station, expected: "Rautatientori", within: 2, at: station,
            maxDistanceMeters: 200),
        .init(
            query: "Helsingin päärautatieasema", expected: "Helsingin päärautatieasema", at: c(60.1712, 24.9413),
            maxDistanceMeters: 200),
        // typos
        .init(query: "stokmann", expected: "Stockmann", at: stockmann),
        .init(query: "stokman", expected: "Stockmann", at: stockmann),
        .init(query: "vanha kaupahalli", expected: "Vanha Kauppahalli", at: kauppahalli),
        .init(query: "kiasmaa", expected: "Kiasma", at: c(60.1720, 24.9370)),
        .init(query: "manerheimintie", expected: "Mannerheimintie", at: c(60.1700, 24.9390), maxDistanceMeters: 1200),
        .init(query: "ateneun", expected: "Ateneum", within: 2, at: c(60.1699, 24.9440)),
        // diacritics folded either way
        .init(query: "kamp", expected: "Hotel Kämp", within: 5, at: c(60.16821, 24.94730), maxDistanceMeters: 20),
        .init(query: "hotel kamp", expected: "Hotel Kämp", at: c(60.16821, 24.94730), maxDistanceMeters: 20),
        .init(query: "HOTEL KÄMP", expected: "Hotel Kämp", at: c(60.16821, 24.94730), maxDistanceMeters: 20),
        .init(
            query: "paarautatieasema", expected: "Helsingin päärautatieasema", at: c(60.1712, 24.9413),
            maxDistanceMeters: 200),
        .init(query: "aidinrakkaus", expected: "Äidinrakkaus", at: c(60.17360, 24.95014), maxDistanceMeters: 20),
        // house numbers, ranges
        .init(query: "Aleksanterinkatu 21", expected: "Aleksanterinkatu 21", at: c(60.16891, 24.94140)),
        .init(query: "Mannerheimintie 20", expected: "Mannerheimintie 20", at: c(60.1696, 24.9385)),
        .init(query: "Pohjoisesplanadi 29", expected: "Pohjoisesplanadi 29", at: c(60.16821, 24.94730)),
        .init(query: "Aleksanterinkatu 32", expected: "Aleksanterinkatu 30-34", at: c(60.1690, 24.9490)),
        .init(
            query: "Siltasaarenkatu 8", expected: "Siltasaarenkatu 6-10", within: 2, at: c(60.1785, 24.9500),
            maxDistanceMeters: 300),
        .init(query: "Uudenmaankatu 11", expected: "Uudenmaankatu 9-11", at: c(60.16486, 24.94152)),
        .init(query: "aleksanterink 21", expected: "Aleksanterinkatu 21", at: c(60.16891, 24.94140)),
        // category words, alone and with a name
        .init(query: "hotel", near: c(60.17000, 24.93990), expected: "Hotelli Seurahuone", at: c(60.17012, 24.93987)),
        .init(query: "museum", near: c(60.1699, 24.9440), expected: "Ateneum", at: c(60.1699, 24.9440)),
        .init(query: "museo", near: c(60.1720, 24.9370), expected: "Kiasma", within: 2, at: c(60.1720, 24.9370)),
        .init(query: "hotel haven", expected: "Hotel Haven", at: c(60.16651, 24.95155), maxDistanceMeters: 30),
        .init(query: "cafe engel", expected: "Cafe Engel", at: c(60.16891, 24.95175), maxDistanceMeters: 20),
        .init(
            query: "teatteri union", expected: "WHS Teatteri Union", at: c(60.17571, 24.95118), maxDistanceMeters: 20),
        // other-language and alternative names
        .init(query: "old market hall", expected: "Vanha Kauppahalli", at: kauppahalli),
        .init(query: "gamla saluhallen", expected: "Vanha Kauppahalli", at: kauppahalli),
        .init(query: "riksarkivet", expected: "Kansallisarkisto", at: c(60.1720, 24.9525), maxDistanceMeters: 300),
        .init(
            query: "makkaratalo", expected: "Kauppakeskus Citycenter", at: c(60.1700, 24.9425), maxDistanceMeters: 200),
        .init(
            query: "citycenter", expected: "Kauppakeskus Citycenter", at: c(60.1700, 24.9425), maxDistanceMeters: 200),
        .init(query: "helsingfors", expected: "Helsinki", at: c(60.17, 24.94), maxDistanceMeters: 20_000),
        .init(
            query: "alexandersgatan", expected: "Aleksanterinkatu", within: 3, at: c(60.1689, 24.9467),
            maxDistanceMeters: 800),
        .init(query: "mansku", expected: "Mannerheimintie", at: c(60.1700, 24.9390), maxDistanceMeters: 1200),
        // streets (merged from their segments) and areas
        .init(query: "pohjoisesplanadi", expected: "Pohjoisesplanadi", at: c(60.1680, 24.9475), maxDistanceMeters: 600),
        .init(query: "bulevardi", expected: "Bulevardi", at: c(60.1650, 24.9380), maxDistanceMeters: 800),
        .init(query: "kluuvi", expected: "Kluuvi", at: c(60.1700, 24.9450), maxDistanceMeters: 1500),
        .init(query: "kamppi", expected: "Kamppi", at: kamppi, maxDistanceMeters: 1500),
        // location bias: the nearest of equal matches first
        .init(
            query: "robert's coffee", near: c(60.17113, 24.94705), expected: "Robert's coffee",
            at: c(60.17113, 24.94705), maxDistanceMeters: 10),
        .init(
            query: "robert's coffee", near: stockmann, expected: "Robert's Coffee", at: stockmann,
            maxDistanceMeters: 60),
    ]

    @Test(arguments: forward)
    func forwardSearch(_ test: ForwardCase) throws {
        let index = ExtractIndexFixture.helsinki.index
        let results = try index.search(test.query, near: test.near, limit: 10)
        let rank = results.firstIndex {
            $0.name == test.expected && $0.coordinate.distanceMeters(to: test.at) <= test.maxDistanceMeters
        }
        #expect(
            rank.map { $0 < test.within } == true,
            "got \(results.prefix(5).map { "\($0.name) @\(Int($0.coordinate.distanceMeters(to: test.at)))m" })")
    }

    @Test func aStreetIsOneResultNotOnePerSegment() throws {
        let index = ExtractIndexFixture.helsinki.index
        for name in ["Mannerheimintie", "Aleksanterinkatu", "Fabianinkatu", "Unioninkatu"] {
            let streets = try index.search(name, limit: 20).filter { $0.kind == .street && $0.name == name }
            #expect(streets.count == 1, "\(name): \(streets.count) street results")
        }
    }

    @Test func poisShowTheirOwnAddressOrTheNearestStreet() throws {
        let index = ExtractIndexFixture.helsinki.index
        let kamp = try #require(try index.search("hotel kamp").first)
        #expect(kamp.addressLine == "Pohjoisesplanadi 29")
        #expect(kamp.category == "hotel")
        let haven = try #require(try index.search("hotel haven").first)  // tagged with no street
        #expect(!haven.addressLine.isEmpty)
    }

    static let reverse: [ReverseCase] = [
        .init(lat: 60.16823, lon: 24.94731, expected: "Hotel Kämp"),
        .init(lat: 60.16893, lon: 24.95176, expected: "Cafe Engel"),
        .init(lat: 60.16759, lon: 24.95142, expected: "Havis Amanda"),
        .init(lat: 60.17857, lon: 24.94790, expected: "Scandic Paasi"),
        .init(lat: 60.16650, lon: 24.95156, expected: "Hotel Haven"),
        .init(lat: 60.17361, lon: 24.95015, expected: "Äidinrakkaus"),
        .init(lat: 60.17576, lon: 24.95120, expected: "WHS Teatteri Union"),
        .init(lat: 60.16418, lon: 24.95012, expected: "Hotelli Fabian"),
        .init(lat: 60.16557, lon: 24.95035, expected: "Eromanga"),
        .init(lat: 60.17218, lon: 24.94455, expected: "Gasthaus Omapohja"),
        .init(lat: 60.16604, lon: 24.94337, expected: "Pastor"),
        .init(lat: 60.17432, lon: 24.93909, expected: "Ravintola Lumi"),
        // inside a building: the building
        .init(lat: 60.1684, lon: 24.9417, expected: "Stockmann", maxDistanceMeters: 0),
        .init(lat: 60.16990, lon: 24.94390, expected: "Ateneum", maxDistanceMeters: 0),
        // in a park: the park
        .init(lat: 60.1741, lon: 24.9481, expected: "Kaisaniemen puisto", maxDistanceMeters: 0),
        .init(lat: 60.1755, lon: 24.9371, expected: "Töölönlahden puisto", maxDistanceMeters: 0),
        // no POI or address within 40 m: the nearest named street, with its distance
        .init(lat: 60.1769, lon: 24.9481, expected: "Pitkänsillanranta", maxDistanceMeters: 150),
        .init(lat: 60.1776, lon: 24.9525, expected: "John Stenbergin ranta", maxDistanceMeters: 150),
        .init(lat: 60.1762, lon: 24.9415, expected: "Kaisaniemen puistokuja", maxDistanceMeters: 150),
        .init(lat: 60.1783, lon: 24.9382, expected: "Linnunlauluntie", maxDistanceMeters: 150),
        .init(lat: 60.1734, lon: 24.9404, expected: "Töölönlahdenkatu", maxDistanceMeters: 150),
        // far from all data: nothing
        .init(lat: 60.30, lon: 24.60, expected: nil),
        .init(lat: 60.150, lon: 24.95, expected: nil),
        .init(lat: -33.86, lon: 151.21, expected: nil),
        .init(lat: 0, lon: 0, expected: nil),
    ]

    @Test(arguments: reverse)
    func reverseGeocoding(_ test: ReverseCase) throws {
        let index = ExtractIndexFixture.helsinki.index
        let hit = try index.reverse(at: c(test.lat, test.lon))
        #expect(
            hit?.name == test.expected,
            "got \(hit.map { "\($0.name) (\($0.kind), \($0.distanceMeters ?? -1) m)" } ?? "nil")")
        if let hit, test.expected != nil {
            #expect((hit.distanceMeters ?? .infinity) <= test.maxDistanceMeters)
        }
    }

    @Test func theBuildReportsWhatItHolds() {
        let report = ExtractIndexFixture.helsinki.report
        #expect(report.pois > 1000)
        #expect(report.streets > 50)
        #expect(report.addresses > 300)
        #expect(report.sizeBytes > 0)
    }
}
