import CabTestSupport
import Foundation
import Testing

@Suite(.serialized) struct PlacesAPITests {
    @Test func searchAndReverseOverHTTP() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let search = try server.request("GET", "/v1/places?q=stokmann&near=60.1699,24.9384&limit=3")
        #expect(search.status == 200)
        let results = try #require(search.jsonObject?["results"] as? [[String: Any]])
        #expect(results.first?["name"] as? String == "Stockmann")
        #expect(results.first?["address"] as? String == "Aleksanterinkatu 52")
        #expect((results.first?["distance_m"] as? Double ?? 0) > 0)
        let reverse = try server.request("GET", "/v1/places/reverse?lat=60.1686&lon=24.9414")
        #expect(reverse.status == 200)
        let place = try #require(reverse.jsonObject?["result"] as? [String: Any])
        #expect(place["name"] as? String == "Stockmann")
        let far = try server.request("GET", "/v1/places/reverse?lat=61.5&lon=25.5")
        #expect(far.status == 200)
        #expect(far.text.contains("\"result\":null"))
    }

    @Test(arguments: [
        ("/v1/places", 400, "'q' is missing"),
        ("/v1/places?q=" + String(repeating: "a", count: 10_000), 400, "characters"),
        ("/v1/places?q=cafe&limit=0", 400, "'limit'"),
        ("/v1/places?q=cafe&near=91,0", 400, "out of range"),
        ("/v1/places/reverse?lat=60.1", 400, "required"),
        ("/v1/places/reverse?lat=100&lon=24", 400, "out of range"),
    ])
    func badInputIsA4xxProblem(_ path: String, _ status: Int, _ detail: String) throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let response = try server.request("GET", path)
        #expect(response.status == status)
        let problem = try #require(response.jsonObject)
        #expect((problem["detail"] as? String)?.contains(detail) == true, "\(problem)")
    }

    @Test(arguments: ["%22", "*", "NEAR(", "OR", "a%22%20OR%20%22b", "%C3%28", "%00"])
    func ftsSyntaxNeverLeaksAnError(_ q: String) throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let response = try server.request("GET", "/v1/places?q=\(q)")
        #expect(response.status == 200 || response.status == 400)
        #expect(!response.text.lowercased().contains("fts5"))
        #expect(!response.text.lowercased().contains("syntax error"))
    }

    @Test func mapFeaturesAreGeoJSON() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.dataDirectory("helsinki"))
        defer { server.stop() }
        let response = try server.request("GET", "/v1/map/features?bbox=24.94,60.165,24.95,60.17&zoom=16")
        #expect(response.status == 200)
        #expect(response.jsonObject?["type"] as? String == "FeatureCollection")
        #expect(((response.jsonObject?["features"] as? [Any])?.count ?? 0) > 100)
        #expect(try server.request("GET", "/v1/map/features?bbox=1,2,3").status == 400)
    }
}
