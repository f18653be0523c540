import CabTestSupport
import Foundation
import Synchronization
import Testing

/// The races `TripRaceTests` covers on one node, with their two sides on two different nodes of a three-node
/// city (issue 18): the database's compare-and-set and the durable offers decide, whichever node each side
/// reached.
@Suite("trip races across nodes", .serialized)
struct ClusterRaceTests {
    typealias Cluster = ClusterServeTests.Cluster

    /// Runs `a` and `b` at once on two threads; their answers.
    static func race(_ a: @escaping @Sendable () -> HTTPTestResponse?, _ b: @escaping @Sendable () -> HTTPTestResponse?)
        -> (HTTPTestResponse?, HTTPTestResponse?)
    {
        let answers = Mutex<[Int: HTTPTestResponse]>([:])
        let group = DispatchGroup()
        for (i, side) in [a, b].enumerated() {
            group.enter()
            Thread.detachNewThread {
                if let answer = side() { answers.withLock { $0[i] = answer } }
                group.leave()
            }
        }
        group.wait()
        return answers.withLock { ($0[0], $0[1]) }
    }

    /// A trip booked on `node` with a fresh driver online at its pickup who holds its offer (seen on the
    /// driver's stream on `streamNode`): the trip's id and PIN, the rider's and the driver's headers.
    static func offeredTrip(
        _ cluster: Cluster, on node: ServerProcess, streamOn streamNode: ServerProcess, _ name: String
    )
        throws -> (id: String, pin: String, rider: [String: String], driver: [String: String])
    {
        let driver = try ClusterDispatchTests.onlineDriver(cluster, on: streamNode, name, lat: 60.1700)
        let driverAuth = ["Authorization": "Bearer \(driver.token)"]
        let stream = try HTTPTestConnection(port: streamNode.port, timeoutSeconds: 10)
        try stream.sendRequest("GET", "/v1/driver/stream", headers: driverAuth)
        #expect(try stream.readHead().status == 200)
        for other in cluster.nodes {
            #expect(eventually(within: 5) { cluster.nearbyLatitude(on: other, of: driver.id) != nil })
        }
        let (riderAuth, id, pin) = try cluster.booking(on: node)
        let offered = ClusterServeTests.read(stream, until: ["event: offer", id]).found
        if !offered {
            let psql = try PSQL(conninfo: cluster.postgres.conninfo)
            let offers =
                (try? psql.query("SELECT driver_id, batch, state FROM dispatch_offers WHERE booking_id = '\(id)'"))
                ?? "?"
            let logs = cluster.nodes.map {
                $0.log.split(separator: "\n").filter { $0.contains(id) }.joined(separator: "\n")
            }
            Issue.record("no offer of \(id) to \(name) (\(driver.id)): offers \(offers); logs \(logs)")
        }
        return (id, pin, riderAuth, driverAuth)
    }

    /// The driver of `headers` goes offline (on `node`).
    static func goOffline(_ headers: [String: String], on node: ServerProcess) throws {
        let r = try node.request("POST", "/v1/driver/status", json: ["status": "offline"], headers: headers)
        #expect(r.status == 200, "offline: \(r.text)")
    }

    @Test("accept against cancel, cancel against start-and-complete, one idempotency key: two nodes, one outcome")
    func racesWithTheirSidesOnTwoNodes() throws {
        let cluster = try Cluster(count: 3)
        defer { cluster.stop() }
        let (a, b, c) = (cluster.a, cluster.b, cluster.c)
        #expect(cluster.settledShards())
        var acceptOutcomes: Set<Int> = []
        for round in 0..<3 {
            // The driver accepts on B while the rider cancels on C: the cancel always stands.
            let t = try Self.offeredTrip(cluster, on: a, streamOn: a, "Accepting \(round)")
            let (accept, cancel) = Self.race(
                { try? b.request("POST", "/v1/trips/\(t.id)/accept", headers: t.driver) },
                { try? c.request("POST", "/v1/bookings/\(t.id)/cancel", json: ["reason": "late"], headers: t.rider) })
            #expect(cancel?.status == 200, "\(cancel?.text ?? "no answer")")
            let accepted = try #require(accept?.status)
            #expect(
                accepted == 200 || (accepted == 409 && accept!.text.contains("cancelled_by_rider")), "\(accept!.text)")
            acceptOutcomes.insert(accepted)
            let stored = try a.request("GET", "/v1/bookings/\(t.id)", headers: t.rider)
            #expect(stored.jsonObject?["status"] as? String == "cancelled_by_rider", "\(stored.text)")
            try Self.goOffline(t.driver, on: c)  // the next round's driver is the only one near
        }
        #expect(!acceptOutcomes.isEmpty)

        for round in 0..<3 {
            // An arrived trip: the rider cancels on A while the driver starts and completes on C.
            let t = try Self.offeredTrip(cluster, on: b, streamOn: b, "Arriving \(round)")
            for step in ["accept", "arrived"] {
                let r = try b.request("POST", "/v1/trips/\(t.id)/\(step)", headers: t.driver)
                #expect(r.status == 200, "\(step) of \(t.id) on B: \(r.text)")
            }
            let (cancel, complete) = Self.race(
                { try? a.request("POST", "/v1/bookings/\(t.id)/cancel", json: ["reason": "x"], headers: t.rider) },
                {
                    _ = try? c.request("POST", "/v1/trips/\(t.id)/start", json: ["code": t.pin], headers: t.driver)
                    return try? c.request("POST", "/v1/trips/\(t.id)/complete", headers: t.driver)
                })
            let statuses = [cancel?.status ?? 0, complete?.status ?? 0].sorted()
            #expect(statuses == [200, 409], "cancel \(cancel?.text ?? "-"), complete \(complete?.text ?? "-")")
            let final = try b.request("GET", "/v1/bookings/\(t.id)", headers: t.rider).jsonObject?["status"] as? String
            #expect(final == (cancel?.status == 200 ? "cancelled_by_rider" : "completed"))
            try Self.goOffline(t.driver, on: a)
        }

        // One idempotency key sent to A and to B at once: one booking, the same answer on both.
        let rider = try a.request("POST", "/v1/riders", json: ["name": "Twice"])
        let auth = ["Authorization": "Bearer \(try #require(rider.jsonObject?["token"] as? String))"]
        for _ in 0..<3 {
            let headers = auth.merging(["Idempotency-Key": UUID().uuidString]) { $1 }
            let body = Array(
                #"{"pickup": {"lat": 60.1699, "lon": 24.9384}, "dropoff": {"lat": 60.1655, "lon": 24.9466}}"#.utf8)
            let sent = headers.merging(["Content-Type": "application/json"]) { $1 }
            let (first, second) = Self.race(
                { try? a.request("POST", "/v1/bookings", headers: sent, body: body) },
                { try? b.request("POST", "/v1/bookings", headers: sent, body: body) })
            let ids = [first, second].compactMap { $0?.jsonObject?["id"] as? String }
            #expect(ids.count == 2 && ids[0] == ids[1], "\(first?.text ?? "-") / \(second?.text ?? "-")")
            #expect([first?.status, second?.status].compactMap { $0 }.allSatisfy { $0 == 200 || $0 == 201 })
            let cancelled = try c.request("POST", "/v1/bookings/\(ids[0])/cancel", json: ["reason": "x"], headers: auth)
            #expect(cancelled.status == 200)
        }
        let trips = try a.request("GET", "/v1/bookings?limit=50", headers: auth)
        #expect((trips.jsonObject?["bookings"] as? [Any])?.count == 3, "\(trips.text.prefix(300))")
        let check = try CabProcess.run(["check-dispatch", "--postgres", cluster.postgres.conninfo])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
    }
}
