import CabCore
import CabGeo
import CabRedis
import CabTestSupport
import CabTracking
import Foundation
import Synchronization
import Testing

@testable import CabCluster

/// What several nodes share over a real `redis-server` (`RedisTestServer`, a Unix socket in a temporary folder, no
/// persistence): positions published on one node reach the others, a new node starts warm, limits and event ids
/// are cluster-wide, and a Redis restart loses none of it for longer than the outage.
@Suite struct ClusterTests {
    static let keys = ClusterKeys(city: "test")

    static func position(_ driver: String, time: Int64, lat: Double = 60.17, status: DriverStatus = .available)
        -> ReplicatedPosition
    {
        ReplicatedPosition(
            driver: id(driver),
            position: DriverPosition(
                coordinate: Coordinate(latitude: lat, longitude: 24.94), timeMilliseconds: time, headingDegrees: 90,
                status: status, vehicleClass: .large, speedMetersPerSecond: 8.5))
    }

    /// A valid driver id made from a short name (the same name, the same id).
    static func id(_ name: String) -> DriverID {
        var bytes = [UInt8](repeating: 0, count: 10)
        for (i, b) in name.utf8.enumerated() { bytes[i % 10] = bytes[i % 10] &* 31 &+ b }
        return DriverID(randomBytes: bytes)
    }

    /// Positions a replica delivered, newest per driver.
    final class Seen: Sendable {
        let positions = Mutex<[DriverID: DriverPosition]>([:])
        func add(_ batch: [ReplicatedPosition]) {
            positions.withLock { p in
                for r in batch where (p[r.driver]?.timeMilliseconds ?? .min) < r.position.timeMilliseconds {
                    p[r.driver] = r.position
                }
            }
        }
        func time(of driver: String) -> Int64? { positions.withLock { $0[ClusterTests.id(driver)]?.timeMilliseconds } }
    }

    @Test func aPositionLineRoundTripsAndBadLinesAreSkipped() {
        let p = Self.position("dr_abc", time: 1_700_000_000_123)
        #expect(ReplicatedPosition(line: p.line) == p)
        var bare = p
        bare.position.headingDegrees = nil
        bare.position.speedMetersPerSecond = nil
        #expect(ReplicatedPosition(line: bare.line) == bare)
        for bad in [
            "", "dr_x,1,2", "dr_x,t,60,24,,,0,0", "dr_x,1,95,24,,,0,0", "dr_x,1,60,24,,,9,0", "dr_x,1,60,24,x,,0,0",
        ] {
            #expect(ReplicatedPosition(line: bad) == nil, "\(bad)")
        }
        #expect(ReplicatedPosition.positions(inBatch: p.line + "\nbroken\n" + bare.line) == [p, bare])
    }

    @Test func aFixPublishedOnOneNodeReachesTheOthersButNotItself() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let publisherA = FleetPositionPublisher(redis: RedisClient(endpoint), keys: Self.keys, node: "A")
        let onA = Seen()
        let onC = Seen()
        let replicaA = FleetReplica(endpoint: endpoint, keys: Self.keys, node: "A") { onA.add($0) }
        let replicaC = FleetReplica(endpoint: endpoint, keys: Self.keys, node: "C") { onC.add($0) }
        replicaA.start()
        replicaC.start()
        publisherA.start()
        defer {
            publisherA.stop()
            replicaA.stop()
            replicaC.stop()
        }
        for i in 0..<50 { publisherA.publish(Self.position("dr_d\(i)", time: 1_000 + Int64(i))) }
        #expect(eventually(within: 5) { onC.positions.withLock { $0.count } == 50 })
        #expect(onC.time(of: "dr_d7") == 1_007)
        #expect(onA.positions.withLock { $0.isEmpty }, "a node does not re-apply its own positions")
        #expect(eventually(within: 5) { publisherA.counts.published == 50 })
    }

    @Test func aNewNodeStartsWarmAndTheNewestPositionWins() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let a = FleetPositionPublisher(redis: RedisClient(endpoint), keys: Self.keys, node: "A")
        let b = FleetPositionPublisher(redis: RedisClient(endpoint), keys: Self.keys, node: "B")
        a.publish(Self.position("dr_one", time: 2_000, lat: 60.2))
        #expect(a.flush())
        b.publish(Self.position("dr_one", time: 1_000, lat: 60.1))  // older, from another node: must not win
        b.publish(Self.position("dr_two", time: 1_500))
        #expect(b.flush())
        let seen = Seen()
        let late = FleetReplica(endpoint: endpoint, keys: Self.keys, node: "C") { seen.add($0) }
        #expect(late.start() == 2)
        defer { late.stop() }
        #expect(seen.time(of: "dr_one") == 2_000)
        #expect(seen.positions.withLock { $0[Self.id("dr_one")]?.coordinate.latitude } == 60.2)
        // And it follows what comes after the warm start.
        a.publish(Self.position("dr_two", time: 3_000))
        #expect(a.flush())
        #expect(eventually(within: 5) { seen.time(of: "dr_two") == 3_000 })
    }

    @Test func afterARedisRestartPositionsFlowAgainAndWhatWaitedIsSent() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let publisher = FleetPositionPublisher(
            redis: RedisClient(endpoint, timeoutMilliseconds: 500), keys: Self.keys, node: "A")
        let seen = Seen()
        let events = Mutex<[RedisEvent]>([])
        let replica = FleetReplica(
            endpoint: endpoint, keys: Self.keys, node: "B", onEvent: { e in events.withLock { $0.append(e) } }
        ) {
            seen.add($0)
        }
        replica.start()
        defer { replica.stop() }
        // Enough traffic that the stream's ids are far beyond a fresh server's.
        for i in 0..<20 {
            publisher.publish(Self.position("dr_x", time: 1_000 + Int64(i)))
            #expect(publisher.flush())
        }
        #expect(eventually(within: 5) { seen.time(of: "dr_x") == 1_019 })
        server.stopServer()
        publisher.publish(Self.position("dr_x", time: 5_000))
        publisher.publish(Self.position("dr_y", time: 5_001))
        #expect(!publisher.flush(), "Redis is away: the positions stay pending")
        #expect(publisher.pendingCount == 2)
        try server.start()
        #expect(eventually(within: 5) { publisher.flush() && publisher.pendingCount == 0 })
        #expect(eventually(within: 5) { seen.time(of: "dr_x") == 5_000 && seen.time(of: "dr_y") == 5_001 })
        #expect(events.withLock { $0.contains { if case .restarted = $0 { true } else { false } } })
    }

    @Test func oneRateLimitHoldsAcrossNodesAndRedisAwayMeansLocalLimits() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let onA = ClusterRateLimiter(redis: RedisClient(endpoint), keys: Self.keys, capacity: 3, refillPerSecond: 0.05)
        let onB = ClusterRateLimiter(redis: RedisClient(endpoint), keys: Self.keys, capacity: 3, refillPerSecond: 0.05)
        #expect(onA.take("dr_1") == .allowed)
        #expect(onB.take("dr_1") == .allowed)
        #expect(onA.take("dr_1") == .allowed)
        guard case .refused(let wait) = onB.take("dr_1") else {
            Issue.record("the fourth request across two nodes should be refused")
            return
        }
        #expect(wait > 0 && wait <= 20_000)
        #expect(onB.take("dr_2") == .allowed, "each driver has their own bucket")
        server.stopServer()
        #expect(onA.take("dr_1") == .unavailable)
    }

    @Test func eventIdsAreDenseAcrossNodesAndKeepIncreasingAfterARestart() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let a = ClusterEventSequence(redis: RedisClient(endpoint), keys: Self.keys)
        let b = ClusterEventSequence(redis: RedisClient(endpoint), keys: Self.keys)
        let first = try a.reserve(5)
        let second = try b.reserve(3)
        let third = try a.reserve(1)
        #expect(first.count == 5 && second.count == 3 && third.count == 1)
        #expect(second.lowerBound == first.upperBound + 1 && third.lowerBound == second.upperBound + 1, "dense")
        try server.restart()  // the counter is gone with the server's memory
        let afterRestart = try a.reserve(2)
        #expect(afterRestart.lowerBound > third.upperBound, "ids keep increasing: \(afterRestart)")
        b.observe(afterRestart.upperBound)
        #expect(try b.reserve(1).lowerBound > afterRestart.upperBound)
    }

    @Test func aRevocationOnOneNodeReachesTheOthers() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let onA = TokenRevocations(redis: RedisClient(endpoint), keys: Self.keys)
        let onC = TokenRevocations(redis: RedisClient(endpoint), keys: Self.keys)
        let heard = Mutex<[String]>([])
        onC.follow { hashes in heard.withLock { $0 += hashes } }
        defer { onC.stop() }
        // The follower pins "$" at its first connect; announce until it hears (the first may precede that).
        #expect(eventually(within: 5) { (try? onA.announce("ab12")) != nil && heard.withLock { $0.contains("ab12") } })
    }

    static func identity(_ node: String, map: String, tariff: String = "{\"per_km\":120}")
        -> ClusterMembership.Identity
    {
        ClusterMembership.Identity(node: node, map: map, mapDescription: "\(map).osm.pbf", tariff: tariff)
    }

    @Test func aNodeWithAnotherMapOrTariffIsRefusedAtJoinAndALeftNodeNoLongerCounts() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let member = { (identity: ClusterMembership.Identity) in
            ClusterMembership(redis: RedisClient(endpoint), keys: Self.keys, identity: identity)
        }
        let a = member(Self.identity("a", map: "monaco"))
        #expect(try a.join() == .joined, "the first node of a city")
        #expect(try member(Self.identity("b", map: "monaco")).join() == .joined, "same map and tariff")
        let other = member(Self.identity("c", map: "liechtenstein"))
        guard case .otherMap(let holder) = try other.join() else {
            Issue.record("a node with another map must be refused")
            return
        }
        #expect(
            ["a", "b"].contains(holder.node) && holder.mapDescription == "monaco.osm.pbf" && holder.map == "monaco")
        let dearer = member(Self.identity("d", map: "monaco", tariff: "{\"per_km\":150}"))
        guard case .otherTariff(let charging) = try dearer.join() else {
            Issue.record("a node with another tariff must be refused")
            return
        }
        #expect(charging.tariff == "{\"per_km\":120}")
        #expect(try a.members().map(\.node) == ["a", "b"], "refused nodes are not registered")
        // Once the monaco nodes have left, the city may move to another map.
        a.leave()
        member(Self.identity("b", map: "monaco")).leave()
        #expect(try other.join() == .joined)
    }

    @Test func aDriversOpenOfferIsSeenFromEveryNodeUntilItEnds() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let onA = ClusterTripBus(endpoint: endpoint, keys: Self.keys, node: "A")
        let onB = ClusterTripBus(endpoint: endpoint, keys: Self.keys, node: "B")
        let driver = Self.id("dr_offer")
        let trip = BookingID.random()
        let now = Instant(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1_000))
        let offer = TripOffer(
            tripID: trip, pickup: Coordinate(latitude: 60.17, longitude: 24.94),
            dropoff: Coordinate(latitude: 60.16, longitude: 24.95), pickupName: "Rautatientori \"A\"\n",
            dropoffName: nil, etaSeconds: 240, expiresAt: now.adding(seconds: 30))
        #expect(onB.openOffer(for: driver, at: now) == nil)
        onA.publish(.offer(offer), to: .driver(driver))
        onA.flush()
        #expect(onB.openOffer(for: driver, at: now) == offer)
        #expect(onB.openOffer(for: driver, at: now.adding(seconds: 31)) == nil, "a lapsed offer is not re-sent")
        // Another trip's end leaves the offer; this trip's withdrawal removes it.
        onA.publish(.offerWithdrawn(BookingID.random(), reason: "taken"), to: .driver(driver))
        onA.flush()
        #expect(onB.openOffer(for: driver, at: now) == offer)
        onA.publish(.offerWithdrawn(trip, reason: "taken"), to: .driver(driver))
        onA.flush()
        #expect(onB.openOffer(for: driver, at: now) == nil)
        server.stopServer()
        #expect(onB.openOffer(for: driver, at: now) == nil, "Redis away: no offer, no error")
    }

    /// Fleet events a replica delivered, in order.
    final class Events: Sendable {
        let list = Mutex<[NumberedPosition]>([])
        func add(_ batch: [NumberedPosition]) { list.withLock { $0 += batch } }
        var ids: [UInt64] { list.withLock { $0.map(\.eventID) } }
    }

    @Test func fleetEventsHaveDenseIdsInOneOrderOnEveryNodeAndKeepIncreasingAfterARestart() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let a = FleetPositionPublisher(redis: RedisClient(endpoint), keys: Self.keys, node: "A")
        let b = FleetPositionPublisher(redis: RedisClient(endpoint), keys: Self.keys, node: "B")
        let onA = Events()
        let onC = Events()
        let replicaA = FleetReplica(
            endpoint: endpoint, keys: Self.keys, node: "A", onFleetEvents: { onA.add($0) }, onPositions: { _ in })
        let replicaC = FleetReplica(
            endpoint: endpoint, keys: Self.keys, node: "C", onFleetEvents: { onC.add($0) }, onPositions: { _ in })
        replicaA.start()
        replicaC.start()
        defer {
            replicaA.stop()
            replicaC.stop()
        }
        for i in 0..<3 { a.publish(Self.position("dr_a\(i)", time: 1_000)) }
        #expect(a.flush())
        for i in 0..<2 { b.publish(Self.position("dr_b\(i)", time: 1_000)) }
        #expect(b.flush())
        a.publish(Self.position("dr_a0", time: 2_000))
        #expect(a.flush())
        #expect(eventually(within: 5) { onC.ids.count == 6 && onA.ids.count == 6 })
        let ids = onC.ids
        #expect(ids == Array(ids[0]...(ids[0] + 5)), "dense and increasing: \(ids)")
        #expect(onA.list.withLock { $0 } == onC.list.withLock { $0 }, "the same events, with its own, on A")
        #expect(onC.list.withLock { $0.last?.position.driver } == Self.id("dr_a0"))

        // A restarted server has lost the counter: ids still go up, from the publisher's floor or the clock.
        try server.restart()
        b.observe(eventID: ids[5])
        b.publish(Self.position("dr_b0", time: 3_000))
        #expect(eventually(within: 5) { b.flush() })
        #expect(eventually(within: 5) { onC.ids.count == 7 })
        #expect((onC.ids.last ?? 0) > ids[5], "\(onC.ids)")
    }

    /// What a trip's stream on one node received.
    final class Receiver: TripNotificationReceiver {
        let received = Mutex<[TripNotification]>([])
        let finished = Atomic<Bool>(false)
        func receive(_ notification: TripNotification) { received.withLock { $0.append(notification) } }
        func finish() { finished.store(true, ordering: .relaxed) }
    }

    @Test func whatOneNodeTellsATripReachesItsFollowersOnTheOtherNodesOnce() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let onA = ClusterTripBus(endpoint: endpoint, keys: Self.keys, node: "A")
        let onC = ClusterTripBus(endpoint: endpoint, keys: Self.keys, node: "C")
        onA.start()
        onC.start()
        defer {
            onA.stop()
            onC.stop()
        }
        let trip = BookingID.random()
        let riderOnA = Receiver()
        let riderOnC = Receiver()
        onA.subscribe(riderOnA, to: .trip(trip))
        onC.subscribe(riderOnC, to: .trip(trip))
        let position = TripPosition(
            coordinate: Coordinate(latitude: 60.17, longitude: 24.94), headingDegrees: 90,
            time: Instant(millisecondsSinceEpoch: 1_796_000_000_123))
        let alert = ArrivalAlert.arriving(withinSeconds: 120, etaSeconds: 110)
        let sent: [TripNotification] = [
            .status(trip, .arriving, driver: nil, version: 4), .position(position), .pickupETA(seconds: 110),
            .alert(alert),
            .redispatch(trip, reason: .pickupOverdue),
        ]
        // Published until C's follower (which pins "$" at its first connect) has heard them all.
        #expect(
            eventually(within: 5) {
                riderOnC.received.withLock { $0.removeAll() }
                for n in sent { onA.publish(n, to: .trip(trip)) }
                onA.flush()
                return eventually(within: 0.5) { riderOnC.received.withLock { $0.count } >= sent.count }
            })
        #expect(riderOnC.received.withLock { Array($0.suffix(sent.count)) } == sent)
        #expect(riderOnA.received.withLock { $0.count }.isMultiple(of: sent.count), "A delivers its own once")
        onA.finish(trip: trip)
        onA.flush()
        #expect(eventually(within: 5) { riderOnC.finished.load(ordering: .relaxed) }, "the trip's end ends C's stream")
    }
}
