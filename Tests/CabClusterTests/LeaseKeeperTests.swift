import CabCore
import CabGeo
import CabStore
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabCluster

/// Two `LeaseKeeper`s for two node ids on one real PostgreSQL (`SharedPostgres`): they share the 64 shards
/// evenly, a clean stop hands every shard over at once, and after a kill the survivor takes over once the
/// leases expire, under larger fences, with the dead node's fence refused by the database.
@Suite(.serialized) struct LeaseKeeperTests {
    /// Every event a keeper reported.
    final class Events: Sendable {
        let all = Mutex<[LeaseKeeper.Event]>([])
        func add(_ e: LeaseKeeper.Event) { all.withLock { $0.append(e) } }
        var started: [ShardFence] {
            all.withLock { $0.compactMap { if case .startActing(let f) = $0 { f } else { nil } } }
        }
    }

    static func keeper(_ name: String, on store: PostgresStore, leaseMilliseconds: Int64, events: Events)
        -> LeaseKeeper
    {
        LeaseKeeper(
            repository: store,
            configuration: .init(
                node: ClusterNodeID(name), ownership: .init(leaseMilliseconds: leaseMilliseconds),
                tickMilliseconds: 100),
            onEvent: { events.add($0) })
    }

    static func store() throws -> PostgresStore {
        try PostgresStore(.init(conninfo: SharedPostgres.freshDatabase(), connections: 4, writers: 2))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        Double((ContinuousClock.now - start) / .milliseconds(1)) / 1_000
    }

    @Test func twoKeepersShareTheShardsEvenlyAndAStoppedOneHandsAllOverAtOnce() throws {
        let store = try Self.store()
        defer { store.close() }
        let (ea, eb) = (Events(), Events())
        let a = Self.keeper("node-a", on: store, leaseMilliseconds: 3_000, events: ea)
        let b = Self.keeper("node-b", on: store, leaseMilliseconds: 3_000, events: eb)
        a.start()
        b.start()
        defer { b.stop() }
        #expect(eventually(within: 15) { a.ownedShards.count == 32 && b.ownedShards.count == 32 })
        #expect(Set(a.ownedShards).isDisjoint(with: b.ownedShards))
        let aFences = Dictionary(uniqueKeysWithValues: a.ownedShards.map { ($0, a.fence(of: $0)!) })  // owned now
        let stopped = ContinuousClock.now
        a.stop()
        #expect(a.ownedShards.isEmpty)
        #expect(eventually(within: 2) { b.ownedShards.count == 64 }, "B holds every shard within two seconds")
        let took = Self.seconds(since: stopped)
        #expect(took < 2, "hand-over took \(took) s")
        for (shard, old) in aFences {
            #expect((b.fence(of: shard)?.fence ?? 0) > old.fence, "\(shard) taken over under a larger fence")
        }
        #expect(Set(eb.started.map(\.shard)) == Set(DispatchShard.all))
        // Every start A made was followed by a stop (at the latest when it stopped).
        let stops = ea.all.withLock { $0.filter { if case .stopActing = $0 { true } else { false } }.count }
        #expect(stops == ea.started.count && stops >= 32)
    }

    @Test func afterAKillTheSurvivorTakesOverOnExpiryAndTheDeadNodesFenceIsRefused() throws {
        let store = try Self.store()
        defer { store.close() }
        let lease: Int64 = 2_000
        let (ea, eb) = (Events(), Events())
        let a = Self.keeper("node-a", on: store, leaseMilliseconds: lease, events: ea)
        let b = Self.keeper("node-b", on: store, leaseMilliseconds: lease, events: eb)
        a.start()
        b.start()
        defer { b.stop() }
        #expect(eventually(within: 15) { a.ownedShards.count == 32 && b.ownedShards.count == 32 })
        // A booking in one of A's shards, and a driver to offer it to.
        let rider = try Self.rider(on: store)
        let driver = try Self.driver(on: store)
        var booking = Self.booking(for: rider)
        let aShards = Set(a.ownedShards)
        while !aShards.contains(DispatchShard(of: booking.id)) { booking.id = .random() }
        let id = try Self.create(booking, in: store)
        let old = try #require(a.fence(of: id))
        #expect(
            try store.writeOffers(.init(booking: id, batch: 1, drivers: [driver], openMilliseconds: 1), under: old)
                == [driver], "A writes while it owns the shard")

        let killed = ContinuousClock.now
        a.stopWithoutReleasing()  // as SIGKILL: no release, no leaving
        #expect(eventually(within: 10) { b.ownedShards.count == 64 })
        let took = Self.seconds(since: killed)
        #expect(took >= Double(lease) / 1_000 * 0.5, "not before A's leases could have run out (\(took) s)")
        #expect(took < Double(lease) / 1_000 + 3, "takeover after the kill took \(took) s")
        #expect(a.fence(of: id) == nil, "A's own deadline passed before B could take over")
        let new = try #require(b.fence(of: id))
        #expect(new.fence > old.fence)
        let next = OfferBatch(booking: id, batch: 2, drivers: [driver], openMilliseconds: 10_000)
        let refused = #expect(throws: CoreError.self) { try store.writeOffers(next, under: old) }
        #expect(refused?.code == .staleFence)
        #expect(try store.writeOffers(next, under: new) == [driver])
        #expect(try store.offers(of: id).map(\.fence.fence) == [old.fence, new.fence])
    }

    @Test func threeKeepersShareTwentyTwoTwentyOneTwentyOneAndTwoShareWhatTheThirdHandsBack() throws {
        let store = try Self.store()
        defer { store.close() }
        let keepers = ["node-a", "node-b", "node-c"].map {
            Self.keeper($0, on: store, leaseMilliseconds: 3_000, events: Events())
        }
        for k in keepers { k.start() }
        defer { for k in keepers.dropFirst() { k.stop() } }
        #expect(eventually(within: 15) { keepers.map(\.ownedShards.count) == [22, 21, 21] })
        #expect(Set(keepers.flatMap(\.ownedShards)).count == 64, "no shard owned twice")
        keepers[0].stop()
        #expect(eventually(within: 5) { keepers.dropFirst().map(\.ownedShards.count) == [32, 32] })
    }

    @Test func aPostgreSQLRestartStopsActingWithinTheDeadlineAndTheKeeperComesBackUnderNewFences() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let store = try PostgresStore(.init(conninfo: server.conninfo, connections: 2, writers: 1))
        defer { store.close() }
        let events = Events()
        let keeper = Self.keeper("node-a", on: store, leaseMilliseconds: 3_000, events: events)
        keeper.start()
        defer { keeper.stop() }
        #expect(eventually(within: 10) { keeper.ownedShards.count == 64 })
        let before = try #require(keeper.fence(of: DispatchShard(0)))
        let down = ContinuousClock.now
        try server.stopServer()
        // Nothing can be renewed: acting stops by two thirds of the lease after the last renewal was sent.
        #expect(eventually(within: 5) { keeper.ownedShards.isEmpty })
        #expect(Self.seconds(since: down) <= 2.5, "acting stopped \(Self.seconds(since: down)) s after the outage")
        #expect(events.all.withLock { $0.contains { if case .failed = $0 { true } else { false } } })
        try server.start()
        #expect(eventually(within: 15) { keeper.ownedShards.count == 64 })
        #expect((keeper.fence(of: DispatchShard(0))?.fence ?? 0) > before.fence)
    }

    @Test func writersOnTwoNodesAcrossAKillAndAZombieWithOldFencesLeaveTheCheckerClean() throws {
        let conninfo = try SharedPostgres.freshDatabase()
        let storeA = try PostgresStore(.init(conninfo: conninfo, connections: 3, writers: 2))
        let storeB = try PostgresStore(.init(conninfo: conninfo, connections: 3, writers: 2))
        defer {
            storeA.close()
            storeB.close()
        }
        let a = Self.keeper("node-a", on: storeA, leaseMilliseconds: 1_500, events: Events())
        let b = Self.keeper("node-b", on: storeB, leaseMilliseconds: 1_500, events: Events())
        a.start()
        b.start()
        defer { b.stop() }
        let rider = try Self.rider(on: storeA)
        let drivers = try (0..<24).map { _ in try Self.driver(on: storeA) }
        // One booking in every shard.
        let bookings = try DispatchShard.all.map { shard in
            var booking = Self.booking(for: rider)
            while DispatchShard(of: booking.id) != shard { booking.id = .random() }
            return try Self.create(booking, in: storeA)
        }
        #expect(eventually(within: 15) { a.ownedShards.count == 32 && b.ownedShards.count == 32 })
        let batch = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let (tallyA, tallyB, tallyZombie) = (Tally(), Tally(), Tally())
        /// Writes offers for random bookings under `fence(booking)` until told to stop.
        func writer(
            _ store: PostgresStore, _ tally: Tally, fence: @escaping @Sendable (BookingID) -> ShardFence?
        ) -> ThreadTask<Void> {
            ThreadTask {
                while !stop.load(ordering: .acquiring) {
                    let booking = bookings.randomElement()!  // 64 bookings
                    guard let fence = fence(booking) else { continue }
                    let offer = OfferBatch(
                        booking: booking, batch: batch.add(1, ordering: .relaxed).newValue,
                        drivers: [drivers.randomElement()!, drivers.randomElement()!], openMilliseconds: 20)
                    do {
                        _ = try store.writeOffers(offer, under: fence)
                        tally.written.add(1, ordering: .relaxed)
                    } catch let error as CoreError where error.code == .staleFence {
                        tally.refused.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        // A zombie: what node A held when it was killed, written as if its old requests kept arriving.
        let held = Dictionary(uniqueKeysWithValues: a.ownedShards.map { ($0, a.fence(of: $0)!) })  // owned now
        let nodeA = writer(storeA, tallyA) { a.fence(of: $0) }
        let nodeB = writer(storeB, tallyB) { b.fence(of: $0) }
        #expect(eventually(within: 10) { tallyA.written.load(ordering: .relaxed) >= 50 })
        a.stopWithoutReleasing()
        #expect(eventually(within: 10) { b.ownedShards.count == 64 })
        let zombie = writer(storeA, tallyZombie) { held[DispatchShard(of: $0)] }
        let bBefore = tallyB.written.load(ordering: .relaxed)
        #expect(
            eventually(within: 10) {
                tallyZombie.refused.load(ordering: .relaxed) >= 50
                    && tallyB.written.load(ordering: .relaxed) >= bBefore + 50
            })
        stop.store(true, ordering: .releasing)
        for task in [nodeA, nodeB, zombie] { try task.value() }
        #expect(tallyZombie.written.load(ordering: .relaxed) == 0, "the zombie's writes were all refused")
        let report = try DispatchInvariantChecker.check(conninfo: conninfo)
        #expect(report.isClean, "\(report)")
    }

    @Test func aKeeperPausedPastItsActingDeadlineOwnsNothingOnWakingAndItsOldFenceIsRefused() throws {
        let store = try Self.store()
        defer { store.close() }
        // The keeper's clock jumps as a SIGSTOPped process's does when it resumes.
        let paused = Atomic<Int64>(0)
        let keeper = LeaseKeeper(
            repository: store,
            configuration: .init(
                node: ClusterNodeID("node-a"), ownership: .init(leaseMilliseconds: 3_000), tickMilliseconds: 100,
                monotonicMilliseconds: { LeaseKeeper.continuousMilliseconds() + paused.load(ordering: .relaxed) }))
        keeper.start()
        defer { keeper.stop() }
        #expect(eventually(within: 10) { keeper.ownedShards.count == 64 })
        let rider = try Self.rider(on: store)
        let driver = try Self.driver(on: store)
        let id = try Self.create(Self.booking(for: rider), in: store)
        let old = try #require(keeper.fence(of: id))
        // 2.5 s "asleep": past the 2 s acting deadline, not past the database's 3 s lease.
        paused.store(2_500, ordering: .relaxed)
        #expect(keeper.fence(of: id) == nil, "owning nothing the moment it wakes, before any round")
        #expect(eventually(within: 5) { (keeper.fence(of: id)?.fence ?? 0) > old.fence }, "acquired again")
        let batch = OfferBatch(booking: id, batch: 1, drivers: [driver], openMilliseconds: 10_000)
        let refused = #expect(throws: CoreError.self) { try store.writeOffers(batch, under: old) }
        #expect(refused?.code == .staleFence, "the lease never expired, but the fence from before the pause is stale")
        #expect(try store.writeOffers(batch, under: #require(keeper.fence(of: id))) == [driver])
    }

    /// What one writer did.
    final class Tally: Sendable {
        let written = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
    }

    static func rider(on store: PostgresStore) throws -> RiderID {
        let rider = RiderID.random()
        try store.createRider(Rider(id: rider, name: "Rider", createdAt: .epoch), tokenHash: hash())
        return rider
    }

    static func driver(on store: PostgresStore) throws -> DriverID {
        let driver = DriverID.random()
        try store.createDriver(
            Driver(id: driver, name: "Aino", vehicle: "Škoda", plate: "ABC-123", createdAt: .epoch), tokenHash: hash())
        return driver
    }

    static func hash() -> TokenHash { TokenHash(bytes: (0..<32).map { _ in UInt8.random(in: 0...255) }) }

    /// A booking in `dispatching`, as dispatch offers them (the store offers nothing else).
    static func booking(for rider: RiderID) -> Booking {
        var booking = Booking(
            id: .random(), riderID: rider, pickup: Coordinate(latitude: 60.1699, longitude: 24.9384),
            pickupName: "Rautatientori", dropoff: Coordinate(latitude: 60.1841, longitude: 24.9501),
            routeDistanceMeters: 2_345, routeDurationSeconds: 420,
            fareEstimate: Tariff.standard.fare(distanceMeters: 2_345, durationSeconds: 420).total, pin: "1234",
            createdAt: Instant(millisecondsSinceEpoch: 1_780_000_000_000))
        booking.status = .dispatching
        return booking
    }

    /// Stores `booking` (from `booking(for:)`) as dispatch does: with its `dispatch` transition.
    static func create(_ booking: Booking, in store: PostgresStore) throws -> BookingID {
        let dispatch = TripTransitionRecord(
            bookingID: booking.id, from: .requested, to: .dispatching, event: .dispatch, actor: .system,
            at: booking.createdAt)
        return try store.create(booking, idempotencyKey: nil, transitions: [dispatch]).booking.id
    }
}
