import CabGeo
import Testing

@testable import CabPlaces

@Suite struct PlaceBadInputTests {
    let index = SmallIndexFixture.index

    /// FTS5 syntax, quotes and stray symbols: never an error, never an FTS message; letters still match.
    @Test(arguments: [
        "\"", "\"\"", "*", "**", "NEAR(", "NEAR(a b)", "OR", "AND", "NOT", "^", ":", "stockmann OR",
        "\"stockmann", "names: stockmann", "{names}: x", "stock*", "(", ")", "'; DROP TABLE place; --", "-",
        "\u{FFFD}", "\u{FFFD}\u{FFFD}kamp", "🚕", "a\u{0301}", "%", "_", "\\",
    ])
    func syntaxCharactersAreJustText(query: String) throws {
        _ = try index.search(query)
    }

    @Test func syntaxAroundAWordStillFindsIt() throws {
        #expect(try index.search("\"stockmann*\" OR ^").first?.name == "Stockmann")
        #expect(try index.search("NEAR(stockmann").first?.name == "Stockmann")
    }

    @Test func invalidUTF8ArrivesAsReplacementCharacters() throws {
        let bytes: [UInt8] = [0x6B, 0xC3, 0x61, 0xED, 0xA0, 0x80, 0x6D, 0x70]  // "k", broken "ä", a lone surrogate
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.unicodeScalars.contains("\u{FFFD}"))
        _ = try index.search(text)
    }

    @Test func emptyAndSymbolOnlyQueriesFindNothing() throws {
        #expect(try index.search("").isEmpty)
        #expect(try index.search("   ").isEmpty)
        #expect(try index.search("\"*^:()").isEmpty)
    }

    @Test func overlongQueriesAreRefused() {
        let long = String(repeating: "stockmann ", count: 1000)  // 10 kB
        #expect(throws: PlacesError.self) { try index.search(long) }
        do {
            _ = try index.search(long)
        } catch {
            #expect(error.code == .queryTooLong)
            #expect(error.isCallerError)
        }
    }

    @Test(arguments: ["stock\u{0}mann", "\u{7}", "a\u{1B}[31m", "\u{85}x"])
    func controlCharactersAreRefused(query: String) {
        #expect(throws: PlacesError.self) { try index.search(query) }
    }

    @Test func tabsAndNewlinesAreSpaces() throws {
        #expect(try index.search("hotel\tkamp\n").first?.name == "Hotel Kämp")
    }

    @Test(arguments: [0, -1, 51, Int.max])
    func limitsOutsideTheRangeAreRefused(limit: Int) {
        #expect(throws: PlacesError.self) { try index.search("kamp", limit: limit) }
    }

    @Test(arguments: [
        Coordinate(latitude: 91, longitude: 0), Coordinate(latitude: 0, longitude: 181),
        Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 0, longitude: .infinity),
    ])
    func invalidCoordinatesAreRefused(point: Coordinate) {
        #expect(throws: PlacesError.self) { try index.search("kamp", near: point) }
        #expect(throws: PlacesError.self) { try index.reverse(at: point) }
    }

    @Test func reverseRadiusMustBeSensible() {
        let p = Coordinate(latitude: 60.168, longitude: 24.94)
        #expect(throws: PlacesError.self) { try index.reverse(at: p, maxDistanceMeters: 0) }
        #expect(throws: PlacesError.self) { try index.reverse(at: p, maxDistanceMeters: .nan) }
        #expect(throws: PlacesError.self) { try index.reverse(at: p, maxDistanceMeters: 1e9) }
    }

    @Test func aMissingOrForeignFileIsNotAnIndex() throws {
        #expect(throws: PlacesError.self) { try PlaceIndex(path: "/nonexistent/places.db") }
    }
}
