import CabCore
import CabGeo
import CabPlaces
import CabTestSupport
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// `GET /v1/places` and `/v1/places/reverse` in process over a small index: the rider's language (`lang`, else
/// `Accept-Language`), the local name beside it, the category, address and area of every result.
@Suite struct PlaceEndpointTests {
    static let index: PlaceIndex = {
        func p(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }
        do {
            let path = try TestData.temporaryDirectory("places-api").appendingPathComponent("api.places").path
            let builder = PlaceIndexBuilder(path: path)
            builder.add(
                PlaceFeature(
                    source: .init(.way, 1),
                    tags: [
                        "name": "Helsingin tuomiokirkko", "name:fi": "Helsingin tuomiokirkko",
                        "name:sv": "Helsingfors domkyrka", "name:en": "Helsinki Cathedral",
                        "amenity": "place_of_worship", "tourism": "attraction", "wikidata": "Q738015",
                        "addr:street": "Unioninkatu", "addr:housenumber": "29",
                    ],
                    geometry: .area([
                        [
                            p(60.1703, 24.9518), p(60.1706, 24.9518), p(60.1706, 24.9524), p(60.1703, 24.9524),
                            p(60.1703, 24.9518),
                        ]
                    ])))
            builder.add(
                PlaceFeature(
                    source: .init(.node, 2),
                    tags: ["name": "Hki tuomiokirkko", "name:sv": "Hfors domkyrka", "highway": "bus_stop"],
                    geometry: .point(p(60.16985, 24.95213))))
            builder.add(
                PlaceFeature(
                    source: .init(.node, 3),
                    tags: ["name": "Kruununhaka", "name:sv": "Kronohagen", "place": "neighbourhood"],
                    geometry: .point(p(60.1720, 24.9540))))
            builder.add(
                PlaceFeature(
                    source: .init(.way, 4),
                    tags: ["name": "Unioninkatu", "name:sv": "Unionsgatan", "highway": "primary"],
                    geometry: .line([p(60.1690, 24.9510), p(60.1720, 24.9512)])))
            _ = try builder.finish()
            return try PlaceIndex(path: path)
        } catch {
            preconditionFailure("the API test place index could not be built: \(error)")
        }
    }()

    let router: Router = {
        var services = Services()
        services.places = PlaceEndpointTests.index
        return CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: services, metrics: MetricsRegistry()
        )
        .makeRouter()
    }()

    func get(_ path: String, query: [String: String], headers: [String: String] = [:]) throws -> (Int, [String: Any]) {
        var request = HTTPRequest(method: "GET", path: path, query: query, headers: headers, requestID: "test")
        guard case .found(let route, let parameters) = router.match(method: "GET", path: path) else {
            Issue.record("no route for \(path)")
            return (404, [:])
        }
        request.pathParameters = parameters
        let response: HTTPResponse
        do { response = try route.handler(request) } catch let error as HTTPError { return (error.status, [:]) }
        guard case .bytes(let bytes) = response.body else { return (response.status, [:]) }
        return (response.status, try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] ?? [:])
    }

    func first(_ json: [String: Any]) -> [String: Any] { (json["results"] as? [[String: Any]])?.first ?? [:] }

    @Test func aSwedishRiderReadsSwedishWithTheLocalNameBeside() throws {
        let (status, json) = try get("/v1/places", query: ["q": "Helsingfors domkyrka", "lang": "sv"])
        #expect(status == 200)
        let top = first(json)
        #expect(top["name"] as? String == "Helsingfors domkyrka")
        #expect(top["local_name"] as? String == "Helsingin tuomiokirkko")
        #expect(top["language"] as? String == "sv")
        #expect(top["category"] as? String == "church")
        #expect(top["address"] as? String == "Unioninkatu 29")
        #expect(top["area"] as? String == "Kruununhaka")
    }

    @Test func acceptLanguageChoosesWhenThereIsNoLangParameter() throws {
        let headers = ["accept-language": "ja;q=0.9, en-GB;q=0.8, fi;q=0.1"]
        let (_, english) = try get("/v1/places", query: ["q": "tuomiokirkko"], headers: headers)
        #expect(first(english)["name"] as? String == "Helsinki Cathedral")
        let (_, finnish) = try get("/v1/places", query: ["q": "tuomiokirkko", "lang": "fi"], headers: headers)
        #expect(first(finnish)["name"] as? String == "Helsingin tuomiokirkko")
        #expect(first(finnish)["local_name"] == nil)
        let (_, local) = try get("/v1/places", query: ["q": "tuomiokirkko"])
        #expect(first(local)["name"] as? String == "Helsingin tuomiokirkko")
    }

    @Test func theCathedralComesBeforeTheBusStopAndBothSayWhatTheyAre() throws {
        let (_, json) = try get("/v1/places", query: ["q": "domkyrka"])
        let results = json["results"] as? [[String: Any]] ?? []
        #expect(results.map { $0["category"] as? String } == ["church", "bus stop"])
    }

    @Test func reverseAnswersInTheRidersLanguage() throws {
        let (status, json) = try get(
            "/v1/places/reverse", query: ["lat": "60.17045", "lon": "24.95210"], headers: ["accept-language": "sv"])
        #expect(status == 200)
        let result = json["result"] as? [String: Any] ?? [:]
        #expect(result["name"] as? String == "Helsingfors domkyrka")
        #expect(result["local_name"] as? String == "Helsingin tuomiokirkko")
    }

    @Test(arguments: ["", "sv,", "x", "toolong", "s1", "sv;q=1"])
    func aMalformedLangIsA400(lang: String) throws {
        let (status, _) = try get("/v1/places", query: ["q": "kirkko", "lang": lang])
        #expect(status == 400)
    }

    @Test func acceptLanguageIsParsedByWeight() {
        #expect(LanguagePreference.parse(acceptLanguage: "sv-FI, sv;q=0.9, en;q=0.5, fi;q=0.7") == ["sv", "fi", "en"])
        #expect(LanguagePreference.parse(acceptLanguage: "*, de;q=0, fr;q=abc, it;q=2, es") == ["es"])
        #expect(LanguagePreference.parse(acceptLanguage: "") == [])
        #expect(LanguagePreference.parse(acceptLanguage: "EN-us") == ["en"])
    }
}
