import CabTestSupport
import Foundation
import Testing

/// Bad input to the booking endpoints is a 4xx `application/problem+json` whose `detail` says what to fix, and
/// nothing is written to the store.
@Suite(.serialized) struct BookingBadInputTests {
    static let station = #"{"lat": 60.1699, "lon": 24.9384}"#
    static let esplanadi = #"{"lat": 60.1655, "lon": 24.9466}"#

    static func trip(_ pickup: String, _ dropoff: String) -> String {
        #"{"pickup": \#(pickup), "dropoff": \#(dropoff)}"#
    }

    static let cases: [(label: String, body: String, status: Int, detail: String)] = [
        ("malformed JSON", #"{"pickup": {"lat": 60.1699,"#, 400, "not valid JSON"),
        ("empty body", "", 400, "body is empty"),
        ("not an object", "[1, 2]", 400, "wrong type"),
        ("missing dropoff", #"{"pickup": \#(station)}"#, 400, "'dropoff' is missing"),
        ("missing lon", trip(#"{"lat": 60.1699}"#, esplanadi), 400, "'lon' is missing"),
        ("string latitude", trip(#"{"lat": "north", "lon": 24.9}"#, esplanadi), 400, "'pickup.lat' has the wrong type"),
        ("latitude 91", trip(#"{"lat": 91, "lon": 24.9384}"#, esplanadi), 400, "'pickup' is out of range"),
        ("longitude -181", trip(station, #"{"lat": 60.1655, "lon": -181}"#), 400, "'dropoff' is out of range"),
        ("NaN", trip(#"{"lat": NaN, "lon": 24.9384}"#, esplanadi), 400, "not valid JSON"),
        ("infinite", trip(#"{"lat": 1e999, "lon": 24.9384}"#, esplanadi), 400, "not valid JSON"),
        ("pickup equals dropoff", trip(station, station), 422, "same place"),
        ("unroutable", trip(station, #"{"lat": 61.5, "lon": 25.5}"#), 422, "no road within"),
        (
            "bad vehicle type", #"{"pickup": \#(station), "dropoff": \#(esplanadi), "vehicle_type": "rocket"}"#, 400,
            "vehicle_type"
        ),
    ]

    @Test func badBookingsAreProblemsAndWriteNothing() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let kept = try #require(try client.book(rider).jsonObject?["id"] as? String)
        for c in Self.cases {
            for path in ["/v1/bookings", "/v1/estimates"] where path == "/v1/bookings" || c.label != "bad vehicle type"
            {
                let response = try client.server.request(
                    "POST", path,
                    headers: [
                        "Authorization": "Bearer \(rider)", "Content-Type": "application/json",
                        "Idempotency-Key": c.label,
                    ],
                    body: Array(c.body.utf8))
                #expect(response.status == c.status, "\(c.label) \(path): \(response.text)")
                #expect(response.problemDetail?.contains(c.detail) == true, "\(c.label) \(path): \(response.text)")
            }
        }
        #expect(try client.allBookingIDs() == [kept])
    }

    @Test func badIdempotencyKeysAndCancelsWriteNothing() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let long = try client.book(rider, key: String(repeating: "k", count: 256))
        #expect(long.status == 400 && long.problemDetail?.contains("Idempotency-Key") == true, "\(long.text)")
        let id = try #require(try client.book(rider).jsonObject?["id"] as? String)
        let tooLong = try client.send(
            "POST", "/v1/bookings/\(id)/cancel", token: rider, json: ["reason": String(repeating: "x", count: 600)])
        #expect(tooLong.status == 400 && tooLong.problemDetail?.contains("shorten") == true, "\(tooLong.text)")
        let malformed = try client.server.request(
            "POST", "/v1/bookings/\(id)/cancel", headers: ["Authorization": "Bearer \(rider)"], body: Array("{".utf8))
        #expect(malformed.status == 400)
        let status = try client.send("GET", "/v1/bookings/\(id)", token: rider).jsonObject?["status"] as? String
        #expect(status == "requested" || status == "dispatching", "still open: \(status ?? "nil")")
        #expect(try client.allBookingIDs() == [id])
        for query in ["status=lost", "limit=0", "limit=101", "cursor=nonsense"] {
            let response = try client.send("GET", "/v1/bookings?\(query)", token: rider)
            #expect(response.status == 400 && response.problemDetail != nil, "\(query): \(response.text)")
        }
        #expect(try client.send("GET", "/v1/bookings/bk_nonsense", token: rider).status == 404)
    }

    @Test func aTenMegabyteBodyIsRefusedWithoutWriting() throws {
        let client = try BookingTestClient()
        let rider = try client.newRider()
        let connection = try HTTPTestConnection(port: client.server.port)
        try connection.send(
            "POST /v1/bookings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(rider)\r\nIdempotency-Key: big\r\n"
                + "Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
        try connection.send(Array(repeating: UInt8(ascii: " "), count: 2_000_000))
        let response = try connection.readResponse(method: "POST")
        #expect(response.status == 413)
        #expect(response.problemDetail?.isEmpty == false, "\(response.text)")
        #expect(try client.allBookingIDs().isEmpty)
    }

    @Test(arguments: [
        (#"{"name": "  "}"#, "'name' is empty"),
        (#"{"nom": "Aino"}"#, "'name' is missing"),
        (#"{"name": 7}"#, "wrong type"),
    ])
    func badRidersAreProblems(_ body: String, _ detail: String) throws {
        let client = try BookingTestClient()
        let response = try client.server.request("POST", "/v1/riders", body: Array(body.utf8))
        #expect(response.status == 400)
        #expect(response.problemDetail?.contains(detail) == true, "\(response.text)")
    }

    @Test func badDriversAreProblems() throws {
        let client = try BookingTestClient()
        let missing = try client.send("POST", "/v1/drivers", json: ["name": "Dan", "vehicle": "Prius"])
        #expect(
            missing.status == 400 && missing.problemDetail?.contains("'plate' is missing") == true, "\(missing.text)")
        let type = try client.send(
            "POST", "/v1/drivers", json: ["name": "Dan", "vehicle": "Prius", "plate": "A-1", "vehicle_type": "tank"])
        #expect(type.status == 400 && type.problemDetail?.contains("standard, large") == true, "\(type.text)")
    }
}
