import CabCore
import CabGeo
import Testing

/// The rules of saved places and recent destinations, without a store.
@Suite struct SavedPlaceTests {
    let t0 = Instant(millisecondsSinceEpoch: 1_780_000_000_000)
    let here = Coordinate(latitude: 60.17, longitude: 24.94)

    @Test func labelsAreTrimmedAndChecked() throws {
        let p = try SavedPlace(label: "  Home ", name: " Kotikatu 5 ", coordinate: here, updatedAt: t0)
        #expect(p.label == "Home" && p.name == "Kotikatu 5" && p.labelKey == "home")
        #expect(throws: CoreError.self) { try SavedPlace(label: "  ", name: "x", coordinate: here, updatedAt: t0) }
        #expect(throws: CoreError.self) {
            try SavedPlace(label: String(repeating: "a", count: 41), name: "x", coordinate: here, updatedAt: t0)
        }
        #expect(throws: CoreError.self) { try SavedPlace(label: "a\u{7}b", name: "x", coordinate: here, updatedAt: t0) }
        #expect(throws: CoreError.self) { try SavedPlace(label: "Home", name: "", coordinate: here, updatedAt: t0) }
        #expect(throws: CoreError.self) {
            try SavedPlace(label: "Home", name: "x", coordinate: Coordinate(latitude: 91, longitude: 0), updatedAt: t0)
        }
    }

    @Test func homeAndWorkComeFirstThenTheRestByLabel() throws {
        let places = try ["gym", "Work", "Aunt", "home"].map {
            try SavedPlace(label: $0, name: "x", coordinate: here, updatedAt: t0)
        }
        #expect(SavedPlace.ordered(places).map(\.label) == ["home", "Work", "Aunt", "gym"])
    }

    func booking(to dropoff: Coordinate, name: String?, minutesAgo: Int) -> Booking {
        Booking(
            id: .random(), riderID: .random(), pickup: here, dropoff: dropoff, dropoffName: name,
            routeDistanceMeters: 1000, routeDurationSeconds: 120, fareEstimate: Money(minorUnits: 900, currency: .eur),
            pin: "1234", createdAt: t0.adding(seconds: -60 * minutesAgo))
    }

    @Test func recentDestinationsAreTheLastDistinctOnesNewestFirst() throws {
        let kiasma = Coordinate(latitude: 60.1720, longitude: 24.9370)
        let stockmann = Coordinate(latitude: 60.1685, longitude: 24.9417)
        let home = Coordinate(latitude: 60.1841, longitude: 24.9501)
        let bookings = [
            booking(to: kiasma, name: "Kiasma (old)", minutesAgo: 90),
            booking(to: stockmann, name: "Stockmann", minutesAgo: 30),
            booking(to: Coordinate(latitude: 60.17201, longitude: 24.93702), name: "Kiasma", minutesAgo: 10),
            booking(to: home, name: nil, minutesAgo: 5),
        ]
        let saved = [try SavedPlace(label: "Home", name: "Home", coordinate: home, updatedAt: t0)]
        let recent = RecentDestination.distinct(from: bookings, saved: saved, limit: 5)
        #expect(recent.map(\.name) == ["Kiasma", "Stockmann"])  // home is already offered; Kiasma once, newest
        #expect(RecentDestination.distinct(from: bookings, limit: 2).count == 2)
    }
}
