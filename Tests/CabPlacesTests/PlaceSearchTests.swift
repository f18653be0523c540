import CabGeo
import Testing

@testable import CabPlaces

@Suite struct PlaceSearchTests {
    let index = SmallIndexFixture.index

    func names(_ query: String, near: Coordinate? = nil, limit: Int = 10) throws -> [String] {
        try index.search(query, near: near, limit: limit).map(\.name)
    }

    @Test func findsAPlaceByAPrefixOfItsName() throws {
        #expect(try names("stockm").first == "Stockmann")
        #expect(try names("Stock").first == "Stockmann")
    }

    @Test func foldsDiacritics() throws {
        #expect(try names("kamp").contains("Hotel Kämp"))
        #expect(try names("KÄMP").contains("Hotel Kämp"))
    }

    @Test func toleratesATypo() throws {
        #expect(try names("stokmann").first == "Stockmann")
        #expect(try names("stokma").first == "Stockmann")
        #expect(try names("aleksanterikatu").first == "Aleksanterinkatu")
    }

    @Test func findsCategoriesByHumanWords() throws {
        #expect(try names("hotel").first == "Hotel Kämp")
        #expect(try names("hotel kamp").first == "Hotel Kämp")
        #expect(try names("hotelli").first == "Hotel Kämp")
        #expect(Set(try names("cafe")).isSuperset(of: ["Cafe Aalto", "Robert's Coffee"]))
        #expect(try names("kahvila").contains("Cafe Aalto"))
    }

    @Test func findsOtherLanguageNames() throws {
        #expect(try names("Stockmann Helsingfors").first == "Stockmann")
        #expect(try names("norra esplanaden").first == "Pohjoisesplanadi")
        #expect(try names("esplanadparken").first == "Esplanadin puisto")
    }

    @Test func mergesTheSegmentsOfAStreetButNotSameNamedStreetsElsewhere() throws {
        let streets = try index.search("Aleksanterinkatu", limit: 10).filter { $0.kind == .street }
        #expect(streets.count == 2)
        #expect(streets.contains { $0.source == PlaceSourceID(.way, 20) })
        #expect(streets.contains { $0.source == PlaceSourceID(.way, 22) })
    }

    @Test func landsOnAHouseNumber() throws {
        let top = try #require(try index.search("Aleksanterinkatu 21").first)
        #expect(top.name == "Aleksanterinkatu 21")
        #expect(top.kind == .address)
    }

    @Test(arguments: ["6", "8", "10"])
    func findsEveryNumberOfARange(number: String) throws {
        #expect(try names("Aleksanterinkatu \(number) ").first == "Aleksanterinkatu 6-10")
    }

    @Test func fallsBackToTheStreetWhenTheNumberIsUnknown() throws {
        #expect(try names("Aleksanterinkatu 999 ").first == "Aleksanterinkatu")
    }

    @Test func biasesToTheNearestOfEqualMatches() throws {
        let north = SmallIndexFixture.point(60.1700, 24.9401)
        let south = SmallIndexFixture.point(60.1650, 24.9499)
        let fromNorth = try #require(try index.search("Robert's Coffee", near: north).first)
        let fromSouth = try #require(try index.search("Robert's Coffee", near: south).first)
        #expect(fromNorth.source == PlaceSourceID(.node, 51))
        #expect(fromSouth.source == PlaceSourceID(.node, 52))
        #expect((fromNorth.distanceMeters ?? 1000) < 20)
    }

    @Test func showsTheOwnAddressOrTheNearestStreet() throws {
        let kamp = try #require(try index.search("hotel kamp").first)
        #expect(kamp.addressLine == "Pohjoisesplanadi 29")
        let aalto = try #require(try index.search("cafe aalto").first)
        #expect(aalto.addressLine == "Pohjoisesplanadi")
        #expect(aalto.category == "cafe")
    }
}
