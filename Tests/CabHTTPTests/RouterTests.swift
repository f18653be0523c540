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
