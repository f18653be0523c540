import CabCore
import CabGeo
import CabSQLite
import CabTestSupport
import Foundation

@testable import CabStore

/// A store on a real file in a fresh temporary directory, with one driver and a helper to make riders.
final class StoreFixture {
    let directory: URL
    let path: String
    var store: SQLiteStore
    let driver = DriverID.random()
    let clockStart = Instant(millisecondsSinceEpoch: 1_780_000_000_000)

    init() throws {
        directory = try TestData.temporaryDirectory("store")
        path = directory.appendingPathComponent("cab.sqlite").path
        store = try SQLiteStore(path: path)
        try store.createDriver(
            Driver(id: driver, name: "Aino", vehicle: "white Škoda Octavia", plate: "ABC-123", createdAt: clockStart),
            tokenHash: Self.randomHash())
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(at: directory)  // best effort: a leftover temp dir is harmless
    }

    /// Closes the store and opens the same file again.
    func reopen() throws {
        store.close()
        store = try SQLiteStore(path: path)
    }

    func makeRider(_ name: String = "Rider") throws -> RiderID {
        let id = RiderID.random()
        try store.createRider(Rider(id: id, name: name, createdAt: clockStart), tokenHash: Self.randomHash())
        return id
    }

    func newBooking(for rider: RiderID, at offsetSeconds: Int = 0) -> Booking {
        Self.newBooking(for: rider, at: clockStart.adding(seconds: offsetSeconds))
    }

    static func newBooking(for rider: RiderID, at time: Instant) -> Booking {
        Booking(
            id: .random(), riderID: rider, pickup: Coordinate(latitude: 60.1699, longitude: 24.9384),
            pickupName: "Rautatientori", dropoff: Coordinate(latitude: 60.1841, longitude: 24.9501),
            routeDistanceMeters: 2_345, routeDurationSeconds: 420,
            fareEstimate: Tariff.standard.fare(distanceMeters: 2_345, durationSeconds: 420).total,
            pin: "1234", createdAt: time)
    }

    /// Moves a stored booking by `command` through the state machine and the repository.
    @discardableResult
    func apply(_ command: TripCommand, to id: BookingID, by actor: Principal, at seconds: Int = 1_000) throws -> Booking
    {
        try store.apply(command, to: id, by: actor, at: clockStart.adding(seconds: seconds), tariff: .standard).booking
    }

    /// Counts rows in `table` straight from the file.
    func count(_ table: String) throws -> Int {
        let db = try SQLiteDatabase(path: path)
        // The table name is a literal from the tests, never user input.
        return try db.query("SELECT count(*) FROM \(table)") { $0.int(0) }.first ?? -1
    }

    static func randomHash() -> TokenHash {
        var g = SystemRandomNumberGenerator()
        return TokenHash(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }
}
