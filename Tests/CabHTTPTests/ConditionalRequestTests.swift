import Testing

@testable import CabHTTP

/// `If-None-Match` against a current `ETag` (RFC 9110 §13.1.2), and routes whose last segment ends in a suffix.
@Suite struct ConditionalRequestTests {
    func request(ifNoneMatch: String?) -> HTTPRequest {
        HTTPRequest(
            method: "GET", path: "/v1/map/tiles/1/0/0.geojson",
            headers: ifNoneMatch.map { ["if-none-match": $0] } ?? [:], requestID: "t")
    }

    @Test(arguments: [
        ("\"a-1\"", true), ("W/\"a-1\"", true), ("\"b\", \"a-1\"", true), ("\"b\",\t\"a-1\" ", true), ("*", true),
        ("\"a-2\"", false), ("a-1", false), ("\"a-1", false), ("", false),
    ])
    func ifNoneMatchNamesTheCurrentTag(header: String, matches: Bool) {
        #expect(request(ifNoneMatch: header).ifNoneMatchIncludes("\"a-1\"") == matches)
    }

    @Test func noHeaderNeverMatches() {
        #expect(!request(ifNoneMatch: nil).ifNoneMatchIncludes("\"a-1\""))
    }

    @Test func notModifiedHasNoBodyAndKeepsTheCachingHeaders() {
        let response = HTTPResponse.notModified(etag: "\"a-1\"", headers: [("Cache-Control", "public, max-age=60")])
        #expect(response.status == 304)
        #expect(response.header("etag") == "\"a-1\"" && response.header("cache-control") == "public, max-age=60")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("a 304 with a streamed body")
            return
        }
        #expect(bytes.isEmpty)
        let full = HTTPResponse.text("x").cacheable(etag: "\"a-1\"", cacheControl: "public, max-age=60")
        #expect(full.status == 200 && full.header("ETag") == "\"a-1\"" && full.header("Cache-Control") != nil)
    }

    @Test func aParameterMayEndInALiteralSuffix() {
        var router = Router()
        router.get("/v1/map/tiles/{z}/{x}/{y}.geojson") { _ in .text("tile") }
        guard case .found(_, let params) = router.match(method: "GET", path: "/v1/map/tiles/15/18654/9484.geojson")
        else {
            Issue.record("no match")
            return
        }
        #expect(params == ["z": "15", "x": "18654", "y": "9484"])
        for path in ["/v1/map/tiles/15/18654/9484", "/v1/map/tiles/15/18654/.geojson", "/v1/map/tiles/15/1/2.json"] {
            guard case .notFound = router.match(method: "GET", path: path) else {
                Issue.record("\(path) matched")
                continue
            }
        }
    }
}
