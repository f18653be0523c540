import CabTestSupport
import Foundation
import Testing

@Suite(.serialized) struct RouteAPITests {
    @Test func servesRoutesAsGeoJSONAndPolyline() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let response = try server.request("GET", "/v1/route?from=60.1699,24.9384&to=60.1655,24.9466")
        #expect(response.status == 200)
        let json = try #require(response.jsonObject)
        let geometry = try #require(json["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "LineString")
        #expect(((geometry["coordinates"] as? [[Double]])?.count ?? 0) > 2)
        #expect((json["polyline"] as? String)?.isEmpty == false)
        #expect((json["distance_m"] as? Double ?? 0) > 650)
    }

    @Test(arguments: [
        ("/v1/route?from=60.1699,24.9384", 400, "'to' is missing"),
        ("/v1/route?from=NaN,24.9&to=60.1655,24.9466", 400, "out of range"),
        ("/v1/route?from=91,24.9&to=60.1655,24.9466", 400, "out of range"),
        ("/v1/route?from=abc&to=60.1655,24.9466", 400, "LAT,LON"),
        ("/v1/route?from=60.1699,24.9384&to=61.5,25.5", 422, "no road within"),
    ])
    func badInputIsAProblemSayingWhatToFix(_ path: String, _ status: Int, _ detail: String) throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let response = try server.request("GET", path)
        #expect(response.status == status)
        #expect(response.headers["content-type"] == "application/problem+json")
        let problem = try #require(response.jsonObject)
        #expect((problem["detail"] as? String)?.contains(detail) == true, "\(problem)")
    }

    @Test func aHugeBodyIsRefusedWithoutReadingIt() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let connection = try HTTPTestConnection(port: server.port)
        try connection.send("POST /v1/route HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n")
        let response = try connection.readResponse(method: "POST")
        #expect(response.status == 413)
    }

    @Test func sigtermStopsTheServerCleanly() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }
}
