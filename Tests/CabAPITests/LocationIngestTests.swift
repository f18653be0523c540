import CabAPI
import CabCore
import CabTestSupport
import Foundation
import Testing

/// `POST /v1/driver/locations` over HTTP: who may post, every ingestion rule, the batch limit, the rate limit.
@Suite struct LocationIngestTests {
    @Test func anAcceptedFixMovesTheDriverAndOnlyThatDriver() throws {
        let f = try TrackingFixture()
        let answer = try f.post([f.fix(60.17, 24.94)], token: f.tokenA)
        #expect(answer.status == 200)
        #expect(answer.jsonObject?["accepted"] as? Int == 1)
        let location = try f.request("GET", "/v1/drivers/\(f.driverA)/location", token: f.tokenA)
        #expect(location.status == 200)
        let position = try #require(location.jsonObject?["position"] as? [String: Double])
        #expect(position["lat"] == 60.17 && position["lon"] == 24.94)
        #expect(location.jsonObject?["updated_at"] as? String == f.time())
        #expect(location.jsonObject?["speed"] as? Double == 8.5)
        #expect(try f.request("GET", "/v1/drivers/\(f.driverB)/location", token: f.dispatcherToken).status == 404)
    }

    @Test func aDriverCannotPostForAnotherDriver() throws {
        let f = try TrackingFixture()
        let answer = try f.post([f.fix(60.17, 24.94)], token: f.tokenA, extra: ["driver_id": f.driverB.rawValue])
        #expect(answer.status == 403)
        #expect(f.tracking.fleet.position(of: f.driverB) == nil)
        #expect(f.tracking.fleet.position(of: f.driverA) == nil)
    }

    @Test func onlyADriverTokenMayPost() throws {
        let f = try TrackingFixture()
        #expect(try f.post([f.fix(60.17, 24.94)], token: nil).status == 401)
        #expect(try f.post([f.fix(60.17, 24.94)], token: "not-a-token").status == 401)
        #expect(try f.post([f.fix(60.17, 24.94)], token: f.riderToken).status == 403)
        #expect(try f.post([f.fix(60.17, 24.94)], token: f.dispatcherToken).status == 403)
        #expect(f.tracking.fleet.count == 0)
    }

    @Test func whoMaySeeALocation() throws {
        let f = try TrackingFixture()
        _ = try f.post([f.fix(60.17, 24.94)], token: f.tokenA)
        let path = "/v1/drivers/\(f.driverA)/location"
        #expect(try f.request("GET", path, token: f.tokenA).status == 200)
        #expect(try f.request("GET", path, token: f.dispatcherToken).status == 200)
        #expect(try f.request("GET", path, token: f.tokenB).status == 404)
        #expect(try f.request("GET", path, token: f.riderToken).status == 403)
        #expect(try f.request("GET", path).status == 401)
    }

    /// One case per rule: a first fix at t=0 is accepted, then the second fix breaks the rule.
    @Test(arguments: [
        ("duplicate", 60.17, 24.94, -1.0, 5.0),  // same time again: a retried upload
        ("out_of_order", 60.17, 24.94, -10.0, 5.0),  // older than the newest applied
        ("future", 60.1701, 24.94, 60.0, 5.0),  // a minute ahead of the server's clock
        ("inaccurate", 60.1701, 24.94, -0.5, 500.0),  // accuracy radius of 500 m
        ("impossible_speed", 60.27, 24.94, -0.001, 5.0),  // 11 km in a millisecond
        ("invalid", 99.0, 24.94, -0.25, 5.0),  // latitude out of range
    ])
    func eachRuleDropsAndCounts(reason: String, lat: Double, lon: Double, seconds: Double, accuracy: Double) throws {
        let f = try TrackingFixture()
        f.clock.advance(seconds: 1)
        #expect(try f.post([f.fix(60.17, 24.94, at: -1)], token: f.tokenA).jsonObject?["accepted"] as? Int == 1)
        let answer = try f.post([f.fix(lat, lon, at: seconds, accuracy: accuracy)], token: f.tokenA)
        #expect(answer.status == 200)
        #expect(answer.jsonObject?["accepted"] as? Int == 0)
        #expect((answer.jsonObject?["dropped"] as? [String: Int])?[reason] == 1)
        #expect(try f.metric("tracking_fixes_dropped_total{reason=\"\(reason)\"}") == 1)
        #expect(f.tracking.fleet.position(of: f.driverA)?.coordinate.latitude == 60.17)
    }

    @Test func aRetriedBatchIsHarmless() throws {
        let f = try TrackingFixture()
        let batch = [f.fix(60.17, 24.94, at: -3), f.fix(60.1701, 24.94, at: -2), f.fix(60.1702, 24.94, at: -1)]
        #expect(try f.post(batch, token: f.tokenA).jsonObject?["accepted"] as? Int == 3)
        let again = try f.post(batch, token: f.tokenA)
        #expect(again.jsonObject?["accepted"] as? Int == 0)
        #expect((again.jsonObject?["dropped"] as? [String: Int]) == ["duplicate": 3])
    }

    @Test func theRateLimitAnswers429WithRetryAfter() throws {
        let f = try TrackingFixture(configuration: TrackingFixture.configuration(rateLimitBurst: 2))
        for i in 0..<2 {
            #expect(try f.post([f.fix(60.17, 24.94, at: Double(i) - 5)], token: f.tokenA).status == 200)
        }
        let refused = try f.post([f.fix(60.17, 24.94, at: -1)], token: f.tokenA)
        #expect(refused.status == 429)
        #expect(refused.headers["retry-after"] == "1")
        #expect(try f.metric("tracking_fixes_dropped_total{reason=\"rate_limited\"}") == 1)
        f.clock.advance(seconds: 1)
        #expect(try f.post([f.fix(60.17, 24.94, at: -1)], token: f.tokenA).status == 200)
    }

    @Test func aBatchHoldsAtMostOneHundredFixes() throws {
        let f = try TrackingFixture()
        let fixes = (0..<101).map { f.fix(60.17, 24.94, at: Double($0) - 200) }
        #expect(try f.post(fixes, token: f.tokenA).status == 413)
        #expect(try f.post(Array(fixes.prefix(100)), token: f.tokenA).jsonObject?["accepted"] as? Int == 100)
        #expect(try f.post([], token: f.tokenA).status == 400)
    }

    @Test func aBadTimeIsA400NamingTheField() throws {
        let f = try TrackingFixture()
        var fix = f.fix(60.17, 24.94)
        fix["time"] = "yesterday"
        let answer = try f.post([fix], token: f.tokenA)
        #expect(answer.status == 400)
        #expect((answer.jsonObject?["detail"] as? String)?.contains("time") == true)
    }
}
