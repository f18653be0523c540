import CabCore
import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabAPI

/// Every operation × every actor, from one table: the test checks each cell against the running API, and the
/// same table is the "Access matrix" section of docs/threat-model.md (the test fails when the two differ;
/// `CAB_WRITE_DOCS=1 swift test --filter AccessMatrixTests` rewrites the section).
///
/// Each cell runs in a world of its own (a fresh store): rider A has booked a trip from the south bank, driver A
/// (the only one online) has it offered or further along (the row's state), rider B and driver B (offline) are
/// strangers to it, a
/// dispatcher, a revoked rider token, and the trip's share-link token sent as a bearer token.
@Suite struct AccessMatrixTests {
    enum Actor: String, CaseIterable, Sendable {
        case anonymous
        case riderA = "rider A"
        case riderB = "rider B"
        case driverA = "driver A"
        case driverB = "driver B"
        case dispatcher, revoked
        case share = "share token"
    }

    enum Stage: String, Sendable { case offered, accepted, arrived, riding }

    struct Row: Sendable, CustomTestStringConvertible {
        var operation: String
        var stage: Stage
        var body: String?
        /// In `Actor.allCases` order.
        var expected: [Int]
        var testDescription: String { operation }

        init(_ operation: String, _ expected: [Int], stage: Stage = .offered, body: String? = nil) {
            precondition(expected.count == Actor.allCases.count, "one expected status per actor")
            self.operation = operation
            self.stage = stage
            self.body = body
            self.expected = expected
        }
    }

    /// anonymous, rider A, rider B, driver A, driver B, dispatcher, revoked, share token.
    static let rows: [Row] = [
        Row("GET /v1/me", [401, 200, 200, 200, 200, 200, 401, 401]),
        Row("DELETE /v1/me", [401, 204, 204, 204, 204, 204, 401, 401]),
        Row("POST /v1/bookings", [401, 201, 201, 403, 403, 403, 401, 401], body: booking),
        Row("GET /v1/bookings", [401, 200, 200, 200, 200, 200, 401, 401]),
        Row("GET /v1/bookings/{booking}", [401, 200, 404, 200, 404, 200, 401, 401]),
        Row("GET /v1/bookings/{booking}/qr.svg", [401, 200, 404, 403, 403, 200, 401, 401]),
        Row("GET /v1/bookings/{booking}/qr.png", [401, 200, 404, 403, 403, 200, 401, 401]),
        Row("POST /v1/bookings/{booking}/cancel", [401, 200, 404, 403, 404, 200, 401, 401], body: "{}"),
        Row("GET /v1/bookings/{booking}/stream", [401, 200, 404, 200, 404, 200, 401, 401]),
        Row("POST /v1/bookings/{booking}/share", [401, 201, 404, 403, 403, 201, 401, 401]),
        Row("POST /v1/driver/status", [401, 403, 403, 200, 200, 403, 401, 401], body: #"{"status":"online"}"#),
        Row("GET /v1/driver/stream", [401, 403, 403, 200, 200, 403, 401, 401]),
        Row("POST /v1/trips/{booking}/accept", [401, 403, 403, 200, 409, 403, 401, 401]),
        Row("POST /v1/trips/{booking}/decline", [401, 403, 403, 200, 409, 403, 401, 401]),
        Row("POST /v1/trips/{booking}/depart", [401, 403, 403, 200, 403, 403, 401, 401], stage: .accepted),
        Row("POST /v1/trips/{booking}/arrived", [401, 403, 403, 200, 403, 200, 401, 401], stage: .accepted),
        Row("POST /v1/trips/{booking}/redispatch", [401, 403, 403, 403, 403, 200, 401, 401], stage: .accepted),
        Row(
            "POST /v1/trips/{booking}/start", [401, 403, 403, 200, 403, 403, 401, 401], stage: .arrived,
            body: #"{"code":"{pin}"}"#),
        Row("POST /v1/trips/{booking}/complete", [401, 403, 403, 200, 403, 200, 401, 401], stage: .riding),
        Row("POST /v1/trips/{booking}/cancel", [401, 403, 403, 200, 403, 200, 401, 401], stage: .accepted, body: "{}"),
        Row(
            "POST /v1/trips/{booking}/assign", [401, 403, 403, 403, 403, 200, 401, 401],
            body: #"{"driver_id":"{driverB}"}"#),
        Row("GET /v1/track/{share}", [200, 200, 200, 200, 200, 200, 200, 200]),
        Row("GET /v1/stats", [401, 403, 403, 403, 403, 200, 401, 401]),
        Row("POST /v1/driver/locations", [401, 403, 403, 200, 200, 403, 401, 401], body: fixes),
        Row("POST /v1/driver/devices", [401, 403, 403, 201, 201, 403, 401, 401]),
        Row("GET /v1/drivers/nearby?lat=60.16&lon=24.90", [401, 403, 403, 403, 403, 200, 401, 401]),
        Row("GET /v1/drivers/{driverA}/location", [401, 403, 403, 200, 404, 200, 401, 401]),
        Row("GET /v1/drivers/{driverA}/trail", [401, 403, 403, 200, 404, 200, 401, 401]),
        Row("GET /v1/fleet/stream", [401, 403, 403, 403, 403, 200, 401, 401]),
        Row("GET /v1/trips?open=true", [401, 403, 403, 403, 403, 200, 401, 401]),
        Row("GET /v1/cars/nearby?lat=60.16&lon=24.90", [401, 200, 200, 403, 403, 200, 401, 401]),
        Row("POST /v1/bookings/{booking}/rating", [401, 409, 404, 403, 403, 403, 401, 401], body: #"{"stars":5}"#),
        Row("GET /v1/me/places", [401, 200, 200, 403, 403, 403, 401, 401]),
    ]

    static let booking = #"{"pickup":{"lat":60.16,"lon":24.9},"dropoff":{"lat":60.16,"lon":24.915}}"#
    static let fixes = #"{"fixes":[{"lat":60.1601,"lon":24.9001,"time":"{now}","accuracy":5}]}"#

    /// One cell's world.
    struct World {
        let h: TripHarness
        var tokens: [Actor: String] = [:]
        var values: [String: String] = [:]

        init(stage: Stage) throws {
            h = try TripHarness(withTracking: true)
            let riderA = h.rider()
            let riderB = h.rider()
            let driverA = h.driver(at: RiverMap.south(1))
            let driverB = h.driver(at: RiverMap.north(9), online: false)  // offline: no offer, a stranger to the trip
            let revoked = h.rider()
            _ = try h.store.revokeToken(TokenAuthority.tokenHash(revoked.token), at: h.clock.now())
            let booked = h.book(riderA, from: RiverMap.south(0), to: RiverMap.south(9))
            let id = try #require(booked.string("id"))
            let share = try #require(h.call("POST", "/v1/bookings/\(id)/share", token: riderA.token).string("token"))
            tokens = [
                .riderA: riderA.token, .riderB: riderB.token, .driverA: driverA.token, .driverB: driverB.token,
                .dispatcher: try h.dispatcherToken(), .revoked: revoked.token, .share: share,
            ]
            let pin = try #require(booked.string("pin"))
            values = [
                "{booking}": id, "{share}": share, "{pin}": pin, "{driverA}": driverA.id, "{driverB}": driverB.id,
                "{now}": RFC3339.format(h.clock.now()),
            ]
            let steps: [String] =
                switch stage {
                case .offered: []
                case .accepted: ["accept"]
                case .arrived: ["accept", "arrived"]
                case .riding: ["accept", "arrived", "start"]
                }
            for step in steps {
                let answer = h.call(
                    "POST", "/v1/trips/\(id)/\(step)", token: driverA.token, body: step == "start" ? ["code": pin] : nil
                )
                #expect(answer.status == 200, "setting up \(stage): \(step)")
            }
        }

        func filled(_ text: String) -> String {
            values.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }

        func call(_ row: Row, as actor: Actor) throws -> Int {
            let parts = filled(row.operation).split(separator: " ", maxSplits: 1)
            let target = parts[1].split(separator: "?", maxSplits: 1)
            var query: [String: String] = [:]
            if target.count > 1 {
                for pair in target[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
                }
            }
            let body = try row.body.map { text in
                try JSONSerialization.jsonObject(with: Data(filled(text).utf8)) as? [String: Any] ?? [:]
            }
            return h.call(String(parts[0]), String(target[0]), token: tokens[actor], body: body, query: query).status
        }
    }

    @Test(arguments: rows)
    func everyActorGetsTheDocumentedAnswer(row: Row) throws {
        for (actor, expected) in zip(Actor.allCases, row.expected) {
            let world = try World(stage: row.stage)
            let status = try world.call(row, as: actor)
            #expect(status == expected, "\(row.operation) as \(actor.rawValue)")
        }
    }

    /// The section of docs/threat-model.md that the table above writes.
    static func markdown() -> String {
        var lines = [
            "| operation (trip state) | " + Actor.allCases.map(\.rawValue).joined(separator: " | ") + " |",
            "| --- |" + String(repeating: " --- |", count: Actor.allCases.count),
        ]
        for row in rows {
            let operation = row.operation.replacingOccurrences(of: "|", with: "\\|")
            let stage = row.operation.contains("/v1/trips/") ? " (\(row.stage.rawValue))" : ""
            lines.append("| `\(operation)`\(stage) | " + row.expected.map(String.init).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func theThreatModelShowsThisTable() throws {
        let matches = try GeneratedDocSection.matches(
            Self.markdown(), in: "docs/threat-model.md",
            begin: "<!-- access-matrix:begin (written by AccessMatrixTests) -->\n", end: "\n<!-- access-matrix:end -->")
        #expect(matches, "docs/threat-model.md's access matrix differs from the test's table")
    }
}
