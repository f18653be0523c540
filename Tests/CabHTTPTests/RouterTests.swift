import Testing

@testable import CabHTTP

@Suite struct RouterTests {
    let router: Router = {
        var r = Router()
        r.get("/v1/bookings/{id}") { _ in .text("one") }
        r.get("/v1/bookings/{id}/qr.svg") { _ in .text("svg") }
        r.get("/v1/bookings/mine") { _ in .text("mine") }
        r.post("/v1/bookings") { _ in .text("create") }
        r.get("/static/{path*}") { _ in .text("file") }
        return r
    }()

    @Test func capturesPathParameters() throws {
        guard case .found(let route, let params) = router.match(method: "GET", path: "/v1/bookings/b_12") else {
            Issue.record("no match")
            return
        }
        #expect(route.pattern == "/v1/bookings/{id}")
        #expect(params == ["id": "b_12"])
    }

    @Test func literalBeatsParameter() {
        guard case .found(let route, _) = router.match(method: "GET", path: "/v1/bookings/mine") else {
            Issue.record("no match")
            return
        }
        #expect(route.pattern == "/v1/bookings/mine")
    }

    @Test func wrongMethodIs405WithAllowedMethods() {
        guard case .methodNotAllowed(let allowed) = router.match(method: "DELETE", path: "/v1/bookings") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == ["POST"])
    }

    @Test func restParameterTakesTheRest() {
        guard case .found(_, let params) = router.match(method: "GET", path: "/static/js/app.js") else {
            Issue.record("no match")
            return
        }
        #expect(params["path"] == "js/app.js")
        if case .notFound = router.match(method: "GET", path: "/nope") {} else { Issue.record("expected 404") }
    }
}

@Suite struct RouterLiteralFastPathTests {
    /// The exact-path table must answer what the scan answers, for every kind of route and request.
    @Test func exactHitsAgreeWithTheScan() {
        var r = Router()
        r.get("/v1/things/{id}") { _ in .text("param") }
        r.get("/v1/things/mine") { _ in .text("literal") }
        r.get("/v1/things/mine") { _ in .text("second literal") }
        r.post("/v1/things") { _ in .text("create") }
        r.get("/{rest*}") { _ in .text("rest") }
        r.get("/") { _ in .text("root") }
        func pattern(_ method: String, _ path: String) -> String? {
            if case .found(let route, _) = r.match(method: method, path: path) { return route.pattern }
            return nil
        }
        #expect(pattern("GET", "/v1/things/mine") == "/v1/things/mine")
        #expect(pattern("HEAD", "/v1/things/mine") == "/v1/things/mine")
        #expect(pattern("GET", "/v1/things/mine/") == "/v1/things/mine")
        #expect(pattern("GET", "/v1/things/7") == "/v1/things/{id}")
        #expect(pattern("POST", "/v1/things") == "/v1/things")
        #expect(pattern("GET", "/v1/things") == "/{rest*}")
        #expect(pattern("GET", "/") == "/")
        guard case .found(_, let params) = r.match(method: "GET", path: "/v1/things/mine") else { return }
        #expect(params.isEmpty)
    }
}
