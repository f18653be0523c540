import CabAPI
import CabCore
import CabGeo
import CabTestSupport
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
