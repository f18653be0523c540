import CabCore
import CabGeo
import Testing

@testable import CabStore

/// Saved places ("Home", "Work") in the real SQLite store: durable across a restart, one per label in any case,
/// per rider, bounded.
@Suite struct SavedPlaceStoreTests {
    let home = Coordinate(latitude: 60.1841, longitude: 24.9501)
    let work = Coordinate(latitude: 60.1699, longitude: 24.9384)

    func place(_ label: String, _ at: Coordinate, name: String = "Somewhere", _ fixture: StoreFixture) throws
        -> SavedPlace
    {
        try SavedPlace(label: label, name: name, coordinate: at, address: "Street 1", updatedAt: fixture.clockStart)
    }

    @Test func savedPlacesSurviveARestart() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        #expect(try f.store.save(try place("Work", work, name: "Office", f), for: rider))
        #expect(try f.store.save(try place("Home", home, name: "Kotikatu 5", f), for: rider))
        try f.reopen()
        let saved = try f.store.savedPlaces(of: rider)
        #expect(saved.map(\.label) == ["Home", "Work"])
        #expect(saved[0].name == "Kotikatu 5" && saved[0].coordinate == home && saved[0].address == "Street 1")
        #expect(saved[0].updatedAt == f.clockStart)
    }

    @Test func aLabelInAnotherCaseReplacesTheSamePlace() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        #expect(try f.store.save(try place("home", work, f), for: rider))
        #expect(try !f.store.save(try place("Home", home, name: "New home", f), for: rider))
        let saved = try f.store.savedPlaces(of: rider)
        #expect(saved.count == 1)
        #expect(saved.first?.label == "Home" && saved.first?.coordinate == home && saved.first?.name == "New home")
    }

    @Test func eachRiderSeesOnlyTheirOwn() throws {
        let f = try StoreFixture()
        let a = try f.makeRider("A")
        let b = try f.makeRider("B")
        _ = try f.store.save(try place("Home", home, f), for: a)
        #expect(try f.store.savedPlaces(of: b).isEmpty)
        #expect(try !f.store.removeSavedPlace(labeled: "Home", for: b))
        #expect(try f.store.savedPlaces(of: a).count == 1)
    }

    @Test func removingIsDurableAndReportsWhetherThereWasOne() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        _ = try f.store.save(try place("Gym", home, f), for: rider)
        #expect(try f.store.removeSavedPlace(labeled: "GYM", for: rider))
        #expect(try !f.store.removeSavedPlace(labeled: "Gym", for: rider))
        try f.reopen()
        #expect(try f.store.savedPlaces(of: rider).isEmpty)
    }

    @Test func aRiderMaySaveAtMostTheLimit() throws {
        let f = try StoreFixture()
        let rider = try f.makeRider()
        for i in 0..<SavedPlace.maximumPerRider { _ = try f.store.save(try place("Place \(i)", home, f), for: rider) }
        #expect(throws: CoreError.self) { try f.store.save(try place("One more", home, f), for: rider) }
        // Replacing an existing label is still allowed at the limit.
        #expect(try !f.store.save(try place("Place 3", work, f), for: rider))
        #expect(try f.store.savedPlaces(of: rider).count == SavedPlace.maximumPerRider)
    }
}
