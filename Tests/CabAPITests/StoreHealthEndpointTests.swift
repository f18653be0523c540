import CabAPI
import CabCore
import CabTestSupport
import Foundation
import Testing

@testable import CabStore

/// An operator sees a sick store in `/healthz`, `/readyz` and `/metrics` as soon as a request fails on it.
@Suite struct StoreHealthEndpointTests {
    @Test func aFullDiskShowsInHealthReadinessAndMetricsAndClears() throws {
        let f = try TrackingFixture()
        let healthy = try f.request("GET", "/healthz")
        #expect(healthy.status == 200 && healthy.jsonObject?["ready"] as? Bool == true)
        #expect((healthy.jsonObject?["store"] as? [String: Any])?["status"] as? String == "ok")
        #expect(try f.request("GET", "/readyz").status == 200)
        #expect(try f.metric("store_healthy") == 1)

        let pages = try f.store.writer.write { c in try c.first("PRAGMA page_count", [], row: { $0.int(0) }) ?? 0 }
        _ = try f.store.writer.write { c in try c.first("PRAGMA max_page_count = \(pages)", [], row: { $0.int(0) }) }
        var refused = 0
        for i in 0..<30 {
            let answer = try f.request(
                "POST", "/v1/riders", json: ["name": "Rider \(i) " + String(repeating: "y", count: 180)])
            if answer.status == 503 { refused += 1 }
        }
        #expect(refused > 0)
        let sick = try f.request("GET", "/healthz")
        #expect(sick.status == 200)  // liveness: the process still serves
        #expect(sick.jsonObject?["ready"] as? Bool == false && sick.jsonObject?["status"] as? String == "degraded")
        let store = try #require(sick.jsonObject?["store"] as? [String: Any])
        #expect(store["status"] as? String == "failing" && store["problem"] as? String == "disk_full")
        #expect((store["detail"] as? String)?.contains("Free space") == true)
        let ready = try f.request("GET", "/readyz")
        #expect(ready.status == 503 && ready.headers["content-type"] == "application/problem+json")
        #expect(try f.metric("store_healthy") == 0)
        #expect(try f.metric("store_problems_total{problem=\"disk_full\"}") == 1)

        _ = try f.store.writer.write { c in try c.first("PRAGMA max_page_count = 1000000", [], row: { $0.int(0) }) }
        #expect(try f.request("POST", "/v1/riders", json: ["name": "After"]).status == 201)
        #expect(try f.request("GET", "/readyz").status == 200)
        #expect(try f.metric("store_healthy") == 1)
    }
}
