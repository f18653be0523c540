import CabAPI
import CabCore
import CabTestSupport
import Foundation
import Testing

/// `GET|POST /osmand` as Traccar Client and OsmAnd send it, with device ids from `POST /v1/driver/devices`.
@Suite struct OsmAndTests {
    func device(_ f: TrackingFixture) throws -> String {
        let answer = try f.request("POST", "/v1/driver/devices", token: f.tokenA)
        #expect(answer.status == 201)
        return try #require(answer.jsonObject?["device_id"] as? String)
    }

    var seconds: Int64 { 1_780_000_000 - 30 }

    @Test func traccarClientPostWithEveryField() throws {
        let f = try TrackingFixture()
        let id = try device(f)
        // Traccar Client (Android) POSTs the parameters in the query string with an empty body; speed in knots.
        let path =
            "/osmand?id=\(id)&timestamp=\(seconds)&lat=60.1699&lon=24.9384&speed=10.0&bearing=182.5"
            + "&altitude=12.0&accuracy=8.0&batt=87.0&charge=true"
        #expect(try f.request("POST", path).status == 200)
        let p = try #require(f.tracking.fleet.position(of: f.driverA))
        #expect(p.coordinate.latitude == 60.1699 && p.coordinate.longitude == 24.9384)
        #expect(p.timeMilliseconds == seconds * 1000)
        #expect(p.speedMetersPerSecond == 5.1)  // 10 kn = 5.144 m/s, kept to 0.1 m/s
        #expect(p.headingDegrees == 183)
    }

    @Test func osmAndGetWithOnlyTheRequiredFields() throws {
        let f = try TrackingFixture()
        let id = try device(f)
        #expect(try f.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94").status == 200)
        let p = try #require(f.tracking.fleet.position(of: f.driverA))
        #expect(p.timeMilliseconds == f.clock.now().millisecondsSinceEpoch)  // no timestamp: now
        #expect(p.speedMetersPerSecond == nil && p.headingDegrees == nil)
    }

    /// OsmAnd's `{2}` is milliseconds; other apps send ISO 8601, with a `T` or a space (UTC).
    @Test(arguments: ["milliseconds", "iso", "space"])
    func timestampFormats(format: String) throws {
        let f = try TrackingFixture()
        let id = try device(f)
        let time = f.clock.now().adding(seconds: -30)
        let iso = RFC3339.format(time)
        let value =
            switch format {
            case "milliseconds": String(time.millisecondsSinceEpoch)
            case "iso": iso
            default: String(iso.prefix(19)).replacingOccurrences(of: "T", with: "%20")
            }
        #expect(try f.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&timestamp=\(value)&hdop=6.0").status == 200)
        #expect(f.tracking.fleet.position(of: f.driverA)?.timeMilliseconds == time.millisecondsSinceEpoch)
    }

    @Test func formEncodedBody() throws {
        let f = try TrackingFixture()
        let id = try device(f)
        let body = "id=\(id)&lat=60.17&lon=24.94&timestamp=\(seconds)&bearing=90"
        let answer = try f.request(
            "POST", "/osmand", headers: ["Content-Type": "application/x-www-form-urlencoded"], rawBody: Array(body.utf8)
        )
        #expect(answer.status == 200)
        #expect(f.tracking.fleet.position(of: f.driverA)?.headingDegrees == 90)
    }

    @Test func unknownDevicesAndBadInput() throws {
        let f = try TrackingFixture()
        let id = try device(f)
        #expect(try f.request("GET", "/osmand?id=nope&lat=60.17&lon=24.94").status == 401)
        #expect(try f.request("GET", "/osmand?lat=60.17&lon=24.94").status == 400)
        #expect(try f.request("GET", "/osmand?id=\(id)&lat=north&lon=24.94").status == 400)
        // A device id is not a bearer token, and a bearer token is not a device id.
        #expect(try f.request("GET", "/v1/drivers/\(f.driverA)/location", token: id).status == 401)
        #expect(try f.request("GET", "/osmand?id=\(f.tokenA)&lat=60.17&lon=24.94").status == 401)
        #expect(f.tracking.fleet.count == 0)
        // valid=false is acknowledged (so the app does not resend it) but dropped.
        #expect(try f.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&valid=false").status == 200)
        #expect(f.tracking.fleet.count == 0)
    }
}
