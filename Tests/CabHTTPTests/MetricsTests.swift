import CabHTTP
import CabTestSupport
import Foundation
import Testing

@Suite struct MetricsTests {
    @Test func rendersCountersGaugesAndHistogramsInPrometheusFormat() {
        let metrics = MetricsRegistry()
        let dropped = metrics.counter("tracking_fixes_dropped_total", help: "Fixes dropped.", labelNames: ["reason"])
        dropped.increment(["reason": "stale"])
        dropped.increment(["reason": "stale"])
        dropped.increment(["reason": "say \"hi\"\n"], by: 3)
        // Registering again hands back the same counter.
        metrics.counter("tracking_fixes_dropped_total", help: "Fixes dropped.", labelNames: ["reason"])
            .increment(["reason": "future"])
        metrics.gauge("sse_clients", help: "Connected clients.").set(5)
        let latency = metrics.histogram("op_seconds", help: "Op time.", buckets: [0.1, 1])
        latency.observe(0.05)
        latency.observe(0.5)
        latency.observe(7)
        #expect(dropped.value(["reason": "stale"]) == 2)
        #expect(
            metrics.render() == """
                # HELP op_seconds Op time.
                # TYPE op_seconds histogram
                op_seconds_bucket{le="0.1"} 1
                op_seconds_bucket{le="1"} 2
                op_seconds_bucket{le="+Inf"} 3
                op_seconds_sum 7.55
                op_seconds_count 3
                # HELP sse_clients Connected clients.
                # TYPE sse_clients gauge
                sse_clients 5
                # HELP tracking_fixes_dropped_total Fixes dropped.
                # TYPE tracking_fixes_dropped_total counter
                tracking_fixes_dropped_total{reason="future"} 1
                tracking_fixes_dropped_total{reason="say \\"hi\\"\\n"} 3
                tracking_fixes_dropped_total{reason="stale"} 2

                """)
    }

    @Test func serverRecordsRequestsAndServesMetrics() throws {
        let server = try TestServer { r in r.get("/v1/bookings/{id}") { _ in .text("ok") } }
        _ = try server.get("/v1/bookings/a")
        _ = try server.get("/v1/bookings/b")
        _ = try server.get("/nope")
        // The access log line is written when the request completes, just after the client has its answer.
        #expect(server.eventually { server.accessLog.count >= 3 })
        let text = try server.get("/metrics")
        #expect(text.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(text.text.contains(#"http_requests_total{route="/v1/bookings/{id}",method="GET",status="200"} 2"#))
        #expect(text.text.contains(#"http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.text.contains(#"http_request_duration_seconds_count{route="/v1/bookings/{id}"} 2"#))
        #expect(text.text.contains(#"http_request_duration_seconds_bucket{route="/v1/bookings/{id}",le="+Inf"} 2"#))
    }

    @Test func accessLogLinesAreJSONWithTheFields() throws {
        let server = try TestServer { r in r.get("/v1/bookings/{id}") { _ in .text("hello") } }
        _ = try server.get("/v1/bookings/x?secret=1", headers: ["X-Request-Id": "req-1"])
        #expect(server.eventually { !server.accessLog.isEmpty })
        let line = try #require(server.accessLog.first)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["request_id"] as? String == "req-1")
        #expect(object["method"] as? String == "GET")
        #expect(object["path"] as? String == "/v1/bookings/x")
        #expect(object["route"] as? String == "/v1/bookings/{id}")
        #expect(object["status"] as? Int == 200)
        #expect(object["bytes"] as? Int == 5)
        #expect(object["remote"] as? String == "127.0.0.1")
        #expect((object["duration_ms"] as? Double).map { $0 >= 0 } == true)
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }
}
