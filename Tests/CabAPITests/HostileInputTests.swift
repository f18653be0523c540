import CabAPI
import CabCore
import CabDispatch
import CabGeo
import CabHTTP
import CabStore
import CabTestSupport
import CabTracking
import Foundation
import Testing

/// The probe's numbers and texts over a live server: each is a 400 problem naming the field and its range,
/// and the server answers the next request (before the fix, a heading of 1e19 killed `cab serve`).
@Suite struct HostileInputTests {
    func problem(_ answer: HTTPTestResponse) -> String {
        (answer.jsonObject?["detail"] as? String) ?? ""
    }

    /// (field, its value as JSON text, a phrase the detail must contain).
    @Test(arguments: [
        ("heading", "1e19", "'fixes.[0].heading' is out of range"),
        ("heading", "-720", "'fixes.[0].heading' is out of range"),
        ("heading", "1e6", "from 0 up to (not including) 360"),
        ("speed", "1e308", "'fixes.[0].speed' is out of range"),
        ("speed", "-5", "from 0 to 150 m/s"),
        ("accuracy", "-1", "'fixes.[0].accuracy' is out of range"),
        ("time", "\"0001-01-01T00:00:00Z\"", "'fixes.[0].time' is out of range"),
        ("time", "\"1970-01-01T00:00:00Z\"", "from 2000-01-01"),
        ("seq", "null", "'fixes.[0].seq' is null; leave it out"),
        ("seq", "-3", "'fixes.[0].seq' is out of range"),
    ])
    func aHostileNumberInAFixIsRefusedAndTheServerLives(field: String, json: String, expected: String) throws {
        let f = try TrackingFixture()
        var fix = f.fix(60.17, 24.94)
        fix[field] = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        let answer = try f.post([fix], token: f.tokenA)
        #expect(answer.status == 400)
        #expect(answer.headers["content-type"] == "application/problem+json")
        #expect(problem(answer).contains(expected), "\(problem(answer))")
        #expect(f.tracking.fleet.position(of: f.driverA) == nil)
        // The server is alive and the next ordinary fix is applied.
        #expect(try f.post([f.fix(60.17, 24.94)], token: f.tokenA).jsonObject?["accepted"] as? Int == 1)
    }

    @Test func unknownSpeedAndHeadingMayStillBeNull() throws {
        let f = try TrackingFixture()
        var fix = f.fix(60.17, 24.94)
        fix["speed"] = NSNull()
        fix["heading"] = NSNull()
        fix["accuracy"] = NSNull()
        #expect(try f.post([fix], token: f.tokenA).jsonObject?["accepted"] as? Int == 1)
    }

    func device(_ f: TrackingFixture) throws -> String {
        let answer = try f.request("POST", "/v1/driver/devices", token: f.tokenA)
        return try #require(answer.jsonObject?["device_id"] as? String)
    }

    @Test(arguments: [
        ("bearing=1e19", "'bearing' is out of range"),
        ("heading=-720", "'heading' is out of range"),
        ("speed=1e308", "from 0 to 291 knots"),
        ("speed=-5", "'speed' is out of range"),
        ("accuracy=-2", "'accuracy' is out of range"),
        ("timestamp=-1", "'timestamp' is negative"),
        ("timestamp=-9223372036854775807", "'timestamp' is negative"),
        ("timestamp=0", "'timestamp' is out of range"),
        ("timestamp=0001-01-01T00:00:00Z", "'timestamp' is out of range"),
        ("timestamp=9223372036854775807", "'timestamp' is out of range"),
    ])
    func aHostileOsmAndReportIsRefusedAndTheServerLives(parameter: String, expected: String) throws {
        let f = try TrackingFixture()
        let id = try device(f)
        let answer = try f.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&\(parameter)")
        #expect(answer.status == 400)
        #expect(problem(answer).contains(expected), "\(problem(answer))")
        #expect(f.tracking.fleet.position(of: f.driverA) == nil)
        #expect(try f.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&bearing=90").status == 200)
        #expect(f.tracking.fleet.position(of: f.driverA)?.headingDegrees == 90)
    }

    @Test(arguments: [
        ("name", "Eve\u{0}"), ("name", "\u{1B}[31mred"), ("plate", "ABC\r\nX-Injected: 1"),
        ("plate", "\u{202E}321-CBA"), ("vehicle", "van\u{2066}"), ("name", "tab\tbed"), ("name", "del\u{7F}"),
    ])
    func controlAndDirectionCharactersInAccountsAreRefused(field: String, text: String) throws {
        let h = try TripHarness()
        var body: [String: Any] = ["name": "Driver", "vehicle": "Toyota", "plate": "ABC-1"]
        body[field] = text
        let answer = h.call("POST", "/v1/drivers", body: body)
        #expect(answer.status == 400)
        let detail = answer.string("detail") ?? ""
        #expect(detail.contains("'\(field)' contains the invisible character U+"), "\(detail)")
        #expect(h.call("POST", "/v1/riders", body: ["name": text]).status == 400)
    }

    @Test func ordinaryNamesInAnyScriptAreKept() {
        let h = try! TripHarness()  // a temporary directory and a store: they do not fail here
        for name in ["Aino Mäkelä", "Дмитрий", "محمد", "李小龙", "Zoë-Ann O'Neil", "🚕 Tuomas"] {
            let answer = h.call("POST", "/v1/riders", body: ["name": name])
            #expect(answer.status == 201)
            #expect(answer.string("name") == name)
        }
    }

    @Test func aCancelReasonWithControlCharactersIsRefused() throws {
        let h = try TripHarness()
        let rider = h.rider()
        let booking = h.book(rider, from: RiverMap.north(1), to: RiverMap.south(5))
        let id = try #require(booking.string("id"))
        let answer = h.call("POST", "/v1/bookings/\(id)/cancel", token: rider.token, body: ["reason": "late\u{1B}[2J"])
        #expect(answer.status == 400)
        #expect(try h.status(of: id) != .cancelledByRider)
    }
}

/// Replay protection survives a restart: the newest stored fix is where each driver's rules resume (finding 7).
@Suite struct ReplayAfterRestartTests {
    @Test func anOldFixAfterARestartIsRefusedAndThePositionDoesNotJumpBack() throws {
        let f = try TrackingFixture()
        f.clock.advance(seconds: 60)
        #expect(
            try f.post([f.fix(60.17, 24.94, at: -30), f.fix(60.171, 24.94, at: -10)], token: f.tokenA)
                .jsonObject?["accepted"] as? Int == 2)
        f.tracking.history.close()  // written to the store, as a clean stop does
        #expect(try f.store.newestLocation(of: f.driverA)?.time == f.clock.now().adding(seconds: -10))

        // A new process on the same store: a fresh TrackingService, as `cab serve` makes at start-up.
        let clock = f.clock
        let restarted = TrackingService(
            configuration: TrackingFixture.configuration(), accounts: f.store, history: f.store,
            metrics: MetricsRegistry(),
            now: { clock.now() })
        defer { restarted.shutdown() }
        let replayed = restarted.ingest(
            [
                LocationFix(
                    coordinate: Coordinate(latitude: 60.17, longitude: 24.94),
                    timeMilliseconds: f.clock.now().adding(seconds: -30).millisecondsSinceEpoch, accuracyMeters: 5)
            ],
            from: f.driverA)
        #expect(replayed.accepted.isEmpty && replayed.dropped[.outOfOrder] == 1)
        #expect(restarted.fleet.position(of: f.driverA) == nil)  // no jump back to the old place
        let again = restarted.ingest(
            [
                LocationFix(
                    coordinate: Coordinate(latitude: 60.171, longitude: 24.94),
                    timeMilliseconds: f.clock.now().adding(seconds: -10).millisecondsSinceEpoch, accuracyMeters: 5)
            ],
            from: f.driverA)
        #expect(again.dropped[.duplicate] == 1)
        let newer = restarted.ingest(
            [
                LocationFix(
                    coordinate: Coordinate(latitude: 60.1712, longitude: 24.94),
                    timeMilliseconds: f.clock.now().millisecondsSinceEpoch, accuracyMeters: 5)
            ],
            from: f.driverA)
        #expect(newer.accepted.count == 1)
        #expect(restarted.fleet.position(of: f.driverA)?.coordinate.latitude == 60.1712)
        // A driver with no history starts afresh.
        let other = restarted.ingest(
            [
                LocationFix(
                    coordinate: Coordinate(latitude: 60.2, longitude: 24.9),
                    timeMilliseconds: f.clock.now().adding(seconds: -100).millisecondsSinceEpoch, accuracyMeters: 5)
            ],
            from: f.driverB)
        #expect(other.accepted.count == 1)
    }
}
