import CabTestSupport
import Foundation
import Testing

/// Dispatch by shard ownership (issue 18) on three real `cab serve` nodes over one PostgreSQL and one Redis: a
/// trip is dispatched by the node holding its shard's lease, whichever node it was booked on, its offers written
/// under that lease's fence; a killed owner's trip is taken over where it was.
@Suite("dispatch across nodes by shard owner", .serialized)
struct ClusterDispatchTests {
    typealias Cluster = ClusterServeTests.Cluster

    /// A booking's dispatch shard: FNV-1a of its id modulo 64, as the server computes it (`DispatchShard(of:)`).
    static func shard(of id: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % 64)
    }

    /// The index of the node holding `shard`'s lease, among `cluster.nodes`; nil when none says so.
    static func owner(of shard: Int, in cluster: Cluster, among nodes: [Int] = [0, 1, 2]) -> Int? {
        nodes.first { cluster.shards(of: cluster.nodes[$0])?.contains(shard) == true }
    }

    /// A driver online at `lat` near the pickup, signed up and reporting on `node`.
    static func onlineDriver(_ cluster: Cluster, on node: ServerProcess, _ name: String, lat: Double) throws
        -> (id: String, token: String)
    {
        let d = try cluster.driver(on: node, name)
        let auth = ["Authorization": "Bearer \(d.token)"]
        #expect(try node.request("POST", "/v1/driver/status", json: ["status": "online"], headers: auth).status == 200)
        #expect(try cluster.post(node, token: d.token, lat: lat, lon: 24.9386, at: Date()) == 200)
        return d
    }

    @Test("a trip is offered by its shard's owner under its fence; its owner killed, the next resumes the batch")
    func aKilledOwnersTripIsResumedWhereItWas() throws {
        // The open offer is kept, the decline remembered, and nobody is offered the trip twice.
        let cluster = try Cluster(count: 3) { _ in #"{"dispatch": {"offer_seconds": 20, "batch_size": 2}}"# }
        defer { cluster.stop() }
        #expect(cluster.settledShards())
        let first = try Self.onlineDriver(cluster, on: cluster.a, "Aino", lat: 60.1701)
        let second = try Self.onlineDriver(cluster, on: cluster.b, "Eino", lat: 60.1702)
        for node in cluster.nodes {
            #expect(eventually(within: 5) { cluster.nearbyLatitude(on: node, of: second.id) != nil })
        }

        let (_, trip) = try cluster.book(on: cluster.a)
        let shard = Self.shard(of: trip)
        let ownerIndex = try #require(Self.owner(of: shard, in: cluster))
        let survivor = cluster.nodes[(ownerIndex + 1) % 3]
        let ownerName = "node-" + String(UnicodeScalar(UInt8(97 + ownerIndex)))
        let psql = try PSQL(conninfo: cluster.postgres.conninfo)
        // Both drivers are offered the trip in batch 1, written by the owner under its lease's current fence.
        #expect(
            eventually(within: 5) {
                (try? psql.query(
                    "SELECT count(*) FROM dispatch_offers WHERE booking_id = '\(trip)' AND state = 'open' AND batch = 1"
                )) == "2"
            })
        let written = try psql.query(
            """
            SELECT DISTINCT l.owner, o.fence = l.fence FROM dispatch_offers o
            JOIN dispatch_shard_leases l ON l.shard = o.shard WHERE o.booking_id = '\(trip)'
            """)
        #expect(written == "\(ownerName)|t", "the offers' writer and fence: \(written)")

        // The first driver's app connects to a node that did not make the offer, sees it again and declines there.
        let auth = ["Authorization": "Bearer \(first.token)"]
        let stream = try HTTPTestConnection(port: survivor.port, timeoutSeconds: 20)
        try stream.sendRequest("GET", "/v1/driver/stream", headers: auth)
        #expect(try stream.readHead().status == 200)
        #expect(ClusterServeTests.read(stream, until: ["event: offer", trip]).found)
        let declined = try survivor.request("POST", "/v1/trips/\(trip)/decline", headers: auth)
        #expect(declined.status == 200, "\(declined.text)")

        // The owner dies; another node takes the shard over once the lease runs out.
        cluster.nodes[ownerIndex].kill()
        let killed = Date()
        let survivors = [0, 1, 2].filter { $0 != ownerIndex }
        #expect(eventually(within: 20) { Self.owner(of: shard, in: cluster, among: survivors) != nil })
        #expect(
            Date().timeIntervalSince(killed) < 13,
            "the shard was taken over after \(Date().timeIntervalSince(killed)) s")

        // A third driver comes online. The new owner resumed batch 1 with the second driver's offer still open;
        // when it lapses, batch 2 goes to the third driver only: the one who declined and the one who let it
        // lapse are not asked again.
        let third = try Self.onlineDriver(cluster, on: survivor, "Kerttu", lat: 60.1700)
        let thirdAuth = ["Authorization": "Bearer \(third.token)"]
        let thirdStream = try HTTPTestConnection(port: survivor.port, timeoutSeconds: 30)
        try thirdStream.sendRequest("GET", "/v1/driver/stream", headers: thirdAuth)
        #expect(try thirdStream.readHead().status == 200)
        let offered = ClusterServeTests.read(thirdStream, until: ["event: offer", trip])
        #expect(offered.found, "the third driver's stream: \(offered.text.suffix(400))")
        let other = cluster.nodes[survivors.first { cluster.nodes[$0] !== survivor }!]
        let accepted = try other.request("POST", "/v1/trips/\(trip)/accept", headers: thirdAuth)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(try survivor.request("POST", "/v1/trips/\(trip)/accept", headers: auth).status == 409)

        let offers = try psql.query(
            "SELECT driver_id, batch, state FROM dispatch_offers WHERE booking_id = '\(trip)' ORDER BY batch, driver_id"
        )
        let expected = [
            [first.id, "1", "declined"], [second.id, "1", "expired"], [third.id, "2", "accepted"],
        ].sorted { ($0[1], $0[0]) < ($1[1], $1[0]) }.map { $0.joined(separator: "|") }
        #expect(offers.split(separator: "\n").map(String.init) == expected, "offers: \(offers)")
        let check = try CabProcess.run(["check-dispatch", "--postgres", cluster.postgres.conninfo])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    }

    @Test(
        "a decline on a node that does not dispatch the trip moves the owner's batch on at once; an accept there writes the pickup deadline; with the owner frozen, a cancel there takes the offer off the driver's screen"
    )
    func answersOnOtherNodesActAtOnce() throws {
        // Offers open for 40 s: anything that waited for them to lapse would miss the test's 8 s waits.
        let cluster = try Cluster(count: 3) { _ in #"{"dispatch": {"offer_seconds": 40, "batch_size": 1}}"# }
        defer { cluster.stop() }
        #expect(cluster.settledShards())
        let near = try Self.onlineDriver(cluster, on: cluster.a, "Aino", lat: 60.1700)
        let far = try Self.onlineDriver(cluster, on: cluster.a, "Eino", lat: 60.1712)
        for node in cluster.nodes {
            #expect(eventually(within: 5) { cluster.nearbyLatitude(on: node, of: far.id) != nil })
        }
        let psql = try PSQL(conninfo: cluster.postgres.conninfo)
        func offer(of trip: String, to driver: String) -> String? {
            try? psql.query(
                "SELECT state FROM dispatch_offers WHERE booking_id = '\(trip)' AND driver_id = '\(driver)' ORDER BY batch DESC LIMIT 1"
            )
        }

        // Booked; batch 1 (one driver) goes to the nearer driver, who declines on a node that does not own the trip.
        let (_, trip) = try cluster.book(on: cluster.a)
        let ownerIndex = try #require(Self.owner(of: Self.shard(of: trip), in: cluster))
        let elsewhere = cluster.nodes[(ownerIndex + 1) % 3]
        #expect(eventually(within: 5) { offer(of: trip, to: near.id) == "open" })
        let declinedAt = Date()
        let nearAuth = ["Authorization": "Bearer \(near.token)"]
        let declined = try elsewhere.request("POST", "/v1/trips/\(trip)/decline", headers: nearAuth)
        #expect(declined.status == 200, "\(declined.text)")
        #expect(eventually(within: 8) { offer(of: trip, to: far.id) == "open" }, "batch 2 waited for the 40 s offer")
        #expect(Date().timeIntervalSince(declinedAt) < 8)

        // The other driver accepts there too: the trip's pickup deadline is in the database with the accept.
        let farAuth = ["Authorization": "Bearer \(far.token)"]
        let accepted = try elsewhere.request("POST", "/v1/trips/\(trip)/accept", headers: farAuth)
        #expect(accepted.status == 200, "\(accepted.text)")
        let kinds = try psql.query("SELECT string_agg(kind, ',') FROM dispatch_deadlines WHERE booking_id = '\(trip)'")
        #expect(kinds == "pickup_overdue", "deadlines right after the accept: \(kinds)")

        // A second trip is offered to the first driver; its owner freezes; the rider cancels on another node:
        // the offer leaves the driver's screen from there.
        let (rider, second) = try cluster.book(on: cluster.a)
        let secondOwner = try #require(Self.owner(of: Self.shard(of: second), in: cluster))
        let other = cluster.nodes[(secondOwner + 1) % 3]
        #expect(eventually(within: 5) { offer(of: second, to: near.id) == "open" })
        let stream = try HTTPTestConnection(port: other.port, timeoutSeconds: 20)
        try stream.sendRequest("GET", "/v1/driver/stream", headers: nearAuth)
        #expect(try stream.readHead().status == 200)
        #expect(ClusterServeTests.read(stream, until: ["event: offer", second]).found)
        cluster.nodes[secondOwner].pause()
        defer { cluster.nodes[secondOwner].resume() }
        let cancelled = try other.request(
            "POST", "/v1/bookings/\(second)/cancel", json: ["reason": "changed plans"], headers: rider)
        #expect(cancelled.status == 200, "\(cancelled.text)")
        let told = ClusterServeTests.read(stream, until: ["event: cancelled", "\"trip_id\":\"\(second)\""])
        #expect(told.found, "the driver's stream on the node that took the cancel: \(told.text.suffix(400))")
        #expect(offer(of: second, to: near.id) == "withdrawn")
        cluster.nodes[secondOwner].resume()
        let check = try CabProcess.run(["check-dispatch", "--postgres", cluster.postgres.conninfo])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    }
}
