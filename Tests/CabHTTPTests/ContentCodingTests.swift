import Testing

@testable import CabHTTP

/// `Accept-Encoding` (RFC 9110 §12.5.3): whether a request allows a response in gzip.
@Suite struct ContentCodingTests {
    @Test(arguments: [
        ("gzip", true), ("gzip, deflate, br, zstd", true), ("br;q=1.0, gzip;q=0.8, *;q=0.1", true), ("GZIP", true),
        ("x-gzip", true), ("*", true), ("deflate, *;q=0.5", true), (" gzip ;q=1", true),
        ("gzip;q=0", false), ("gzip;q=0.000, *", false), ("*;q=0", false), ("deflate, br", false), ("identity", false),
        ("", false), ("gzipx", false), ("gzip;q=nonsense", false),
    ])
    func acceptEncodingAllowsGzip(header: String, allows: Bool) {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["accept-encoding": header], requestID: "t")
        #expect(request.acceptsEncoding("gzip") == allows, "\(header)")
    }

    @Test func noHeaderMeansTheIdentity() {
        #expect(!HTTPRequest(method: "GET", path: "/", headers: [:], requestID: "t").acceptsEncoding("gzip"))
    }
}
