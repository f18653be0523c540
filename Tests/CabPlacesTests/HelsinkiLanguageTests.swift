import CabGeo
import Testing

@testable import CabPlaces

private func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

private let cathedral = c(60.17045, 24.95210)

/// Helsinki is bilingual, and visitors write English: Swedish and English queries find the place, and each rider
/// sees its name in their own language with the local (Finnish) name beside it.
@Suite struct HelsinkiLanguageTests {
    let index = ExtractIndexFixture.helsinki.index

    static let forward: [ForwardCase] = [
        // Swedish
        .init(query: "Helsingfors domkyrka", expected: "Helsingin tuomiokirkko", at: cathedral),
        .init(query: "helsingfors domkyrk", expected: "Helsingin tuomiokirkko", at: cathedral),
        .init(query: "domkyrkan", expected: "Helsingin tuomiokirkko", within: 3, at: cathedral),
        .init(query: "gamla kyrkan", expected: "Vanha kirkko", at: c(60.1664, 24.9367), maxDistanceMeters: 200),
        .init(
            query: "järnvägstorget", expected: "Rautatientori", within: 3, at: c(60.1712, 24.9430),
            maxDistanceMeters: 250),
        .init(query: "senatstorget", expected: "Senaatintori", at: c(60.1693, 24.9522), maxDistanceMeters: 200),
        // English
        .init(query: "helsinki cathedral", expected: "Helsingin tuomiokirkko", at: cathedral),
        .init(query: "helsinki catedral", expected: "Helsingin tuomiokirkko", at: cathedral),
        .init(query: "senate square", expected: "Senaatintori", at: c(60.1693, 24.9522), maxDistanceMeters: 200),
        // Two answers are the station: the metro station's English name is exactly "Central Railway Station".
        .init(
            query: "central railway station", expected: "Helsingin päärautatieasema", within: 2,
            at: c(60.1712, 24.9413), maxDistanceMeters: 200),
        .init(
            query: "kaisaniemi park", expected: "Kaisaniemen puisto", at: c(60.1741, 24.9481), maxDistanceMeters: 300),
    ]

    @Test(arguments: forward)
    func forwardSearch(_ test: ForwardCase) throws {
        let results = try index.search(test.query, near: test.near, limit: 10)
        let rank = results.firstIndex {
            $0.name == test.expected && $0.coordinate.distanceMeters(to: test.at) <= test.maxDistanceMeters
        }
        #expect(
            rank.map { $0 < test.within } == true,
            "got \(results.prefix(5).map { "\($0.name) @\(Int($0.coordinate.distanceMeters(to: test.at)))m" })")
    }

    @Test func theCathedralComesBeforeTheBusStopNamedAfterIt() throws {
        let results = try index.search("Helsingfors domkyrka", limit: 10)
        let church = try #require(results.firstIndex { $0.name == "Helsingin tuomiokirkko" })
        let stop = results.firstIndex { $0.name == "Hki tuomiokirkko" } ?? results.count
        #expect(church < stop)
        #expect(results[church].category == "church")
        #expect(results[church].addressLine == "Unioninkatu 29")
        #expect(results[church].area == "Kruununhaka, Helsinki")
        #expect(try index.search("Hfors domkyrka").first?.category == "bus stop")
    }

    @Test func eachRiderReadsTheNameInTheirLanguageWithTheLocalOneBeside() throws {
        let swedish = try #require(try index.search("Helsingfors domkyrka", languages: ["sv"]).first)
        #expect(swedish.name == "Helsingfors domkyrka")
        #expect(swedish.localName == "Helsingin tuomiokirkko" && swedish.language == "sv")
        let finnish = try #require(try index.search("Helsingfors domkyrka", languages: ["fi"]).first)
        #expect(finnish.name == "Helsingin tuomiokirkko" && finnish.localName == nil && finnish.language == nil)
        let english = try #require(try index.search("tuomiokirkko", languages: ["en"]).first)
        #expect(english.name == "Helsinki Cathedral" && english.localName == "Helsingin tuomiokirkko")
        // No Japanese name: the first language it has, else the local name.
        #expect(try index.search("tuomiokirkko", languages: ["ja", "sv"]).first?.name == "Helsingfors domkyrka")
        #expect(try index.search("tuomiokirkko", languages: ["ja"]).first?.name == "Helsingin tuomiokirkko")
        // Streets too.
        let street = try #require(try index.search("aleksanterinkatu", languages: ["sv"]).first { $0.kind == .street })
        #expect(street.name == "Alexandersgatan" && street.localName == "Aleksanterinkatu")
    }

    @Test func reverseAnswersInTheRidersLanguage() throws {
        let hit = try #require(try index.reverse(at: c(60.16823, 24.94731), languages: ["sv"]))
        #expect(hit.localName == nil || hit.localName == "Hotel Kämp")
        let park = try #require(try index.reverse(at: c(60.1741, 24.9481), languages: ["sv"]))
        #expect(park.name == "Kajsaniemiparken" && park.localName == "Kaisaniemen puisto")
    }

    @Test func everyResultSaysWhatItIs() throws {
        for query in [
            "stockmann", "kiasma", "mannerheimintie", "kluuvi", "rautatientori", "aleksanterinkatu 21", "hotel",
        ] {
            for result in try index.search(query, limit: 10) {
                #expect(!result.category.isEmpty && result.category != "yes", "\(result.name): '\(result.category)'")
            }
        }
        #expect(try index.search("kiasma").first?.category == "museum")
        #expect(try index.search("mannerheimintie").first { $0.kind == .street }?.category == "street")
    }

    @Test func theStationHasItsTaxiRank() throws {
        let station = try #require(try index.search("Helsingin päärautatieasema").first)
        let pickup = try #require(station.pickup)
        #expect(pickup.kind == "taxi")
        #expect(pickup.name.hasPrefix("Taxi rank"))
        #expect(pickup.coordinate.distanceMeters(to: station.coordinate) < 250)
        // A café gets none: it is not a venue.
        #expect(try index.search("cafe engel").first?.pickup == nil)
    }
}
