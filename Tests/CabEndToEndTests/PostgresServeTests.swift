import CabTestSupport
import Foundation
import Testing

/// `cab serve --postgres`: several nodes on one PostgreSQL (Debian's server, started on a Unix socket in a temporary
/// folder by `PostgresTestServer`) are one city: what one node stores, every node reads, and a node killed takes
/// nothing acknowledged with it.
@Suite("cab serve on PostgreSQL")
struct PostgresServeTests {
    @Test("two nodes on one database: an account and a booking made on one are read on the other, after a SIGKILL too")
    func twoNodesShareOneDatabase() throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let store = ["--postgres", postgres.conninfo]
        let dataA = try ImportedMap.freshCopy("helsinki")
        let dataB = try ImportedMap.freshCopy("helsinki")
        defer {
            try? FileManager.default.removeItem(at: dataA)
            try? FileManager.default.removeItem(at: dataB)
        }
        let a = try ServerProcess(dataDirectory: dataA, extraArguments: store)
        let b = try ServerProcess(dataDirectory: dataB, extraArguments: store)
        defer { _ = b.stop() }

        let rider = try a.request("POST", "/v1/riders", json: ["name": "Aino"])
        #expect(rider.status == 201, "\(rider.text)")
        let token = try #require(rider.jsonObject?["token"] as? String)
        let auth = ["Authorization": "Bearer \(token)"]
        var acknowledged: [String] = []
        for i in 0..<20 {
            let booked = try a.request(
                "POST", "/v1/bookings",
                json: ["pickup": BookingTestClient.railwayStation, "dropoff": BookingTestClient.esplanadi],
                headers: auth.merging(["Idempotency-Key": "key-\(i)"]) { $1 })
            #expect(booked.status == 201, "\(booked.text)")
            if booked.status == 201, let id = booked.jsonObject?["id"] as? String { acknowledged.append(id) }
            if i == 0, let id = booked.jsonObject?["id"] as? String {
                // A retry with the same key on the other node answers the same booking.
                let again = try b.request(
                    "POST", "/v1/bookings",
                    json: ["pickup": BookingTestClient.railwayStation, "dropoff": BookingTestClient.esplanadi],
                    headers: auth.merging(["Idempotency-Key": "key-0"]) { $1 })
                #expect(again.jsonObject?["id"] as? String == id, "\(again.text)")
            }
        }
        a.kill()  // SIGKILL: nothing it acknowledged may be lost
        for id in acknowledged {
            let read = try b.request("GET", "/v1/bookings/\(id)", headers: auth)
            #expect(read.status == 200, "booking \(id) acknowledged by the killed node: \(read.text)")
        }
        let listed = try b.request("GET", "/v1/bookings?limit=100", headers: auth)
        #expect((listed.jsonObject?["bookings"] as? [Any])?.count == acknowledged.count, "\(listed.text)")
        let health = try b.request("GET", "/healthz")
        #expect(health.status == 200 && health.text.contains("\"ready\":true"), "\(health.text)")
    }

    @Test("a wrong password or a missing database exits 64 saying which")
    func misconfiguredURLExits64() throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let data = try ImportedMap.freshCopy("helsinki")
        defer { try? FileManager.default.removeItem(at: data) }
        let wrongPassword = try CabProcess.run(
            [
                "serve", "--data", data.path, "--port", "0", "--postgres",
                postgres.conninfo(database: "postgres", password: "nope"),
            ])
        #expect(wrongPassword.status == 64, "\(wrongPassword.standardError)")
        #expect(wrongPassword.standardError.lowercased().contains("password"), "\(wrongPassword.standardError)")
        #expect(!wrongPassword.standardError.contains("nope"), "the password is never printed")
        let noDatabase = try CabProcess.run(
            ["serve", "--data", data.path, "--port", "0", "--postgres", postgres.conninfo(database: "no_such_city")])
        #expect(noDatabase.status == 64, "\(noDatabase.standardError)")
        #expect(noDatabase.standardError.contains("no_such_city"), "\(noDatabase.standardError)")
    }

    @Test("PostgreSQL restarted under a booking load: nothing acknowledged is lost, and the node recovers by itself")
    func databaseRestartUnderLoad() throws {
        let postgres = try PostgresTestServer()
        defer { postgres.stop() }
        let data = try ImportedMap.freshCopy("helsinki")
        defer { try? FileManager.default.removeItem(at: data) }
        let node = try ServerProcess(dataDirectory: data, extraArguments: ["--postgres", postgres.conninfo])
        defer { _ = node.stop() }
        let rider = try node.request("POST", "/v1/riders", json: ["name": "Aino"])
        let token = try #require(rider.jsonObject?["token"] as? String)
        let auth = ["Authorization": "Bearer \(token)"]
        let body: [String: Any] = ["pickup": BookingTestClient.railwayStation, "dropoff": BookingTestClient.esplanadi]

        // Book one after another while the database stops and starts again.
        var acknowledged: [String] = []
        var refused = 0
        for i in 0..<120 {
            if i == 30 { try postgres.stopServer() }
            if i == 60 { try postgres.start() }
            if let answer = try? node.request(
                "POST", "/v1/bookings", json: body, headers: auth.merging(["Idempotency-Key": "k\(i)"]) { $1 })
            {
                if answer.status == 201, let id = answer.jsonObject?["id"] as? String {
                    acknowledged.append(id)
                } else {
                    #expect(
                        answer.status == 503, "while the database is away a booking is refused with 503: \(answer.text)"
                    )
                    if answer.status == 503 { #expect(answer.headers["retry-after"] != nil, "\(answer.text)") }
                    refused += 1
                }
            }
            if (30..<60).contains(i) { usleep(20_000) }  // the outage lasts a moment, not 30 requests' worth of nothing
        }
        #expect(refused > 0, "the outage was seen")
        #expect(acknowledged.count > 60, "bookings were taken again after the restart: \(acknowledged.count)")
        // The same node, never restarted, reads every acknowledged booking back.
        #expect(eventually(within: 10) { (try? node.request("GET", "/readyz").status) == 200 })
        for id in acknowledged {
            let read = try node.request("GET", "/v1/bookings/\(id)", headers: auth)
            #expect(read.status == 200, "acknowledged booking \(id): \(read.text)")
        }
    }
}
