import CabCore
import CabPostgres
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabStore

/// Shard leases and fenced writes on a real PostgreSQL (schema v4): fences grow on every takeover, expiry is the
/// database's, and a write under a stale fence is refused by the statement that makes it.
@Suite struct ShardLeaseStoreTests {
    static let a = ClusterNodeID("node-a")
    static let b = ClusterNodeID("node-b")
    static let shard = DispatchShard(11)

    func refusedAsStale(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as CoreError {
            return error.code == .staleFence
        } catch {
            return false
        }
    }

    @Test func theFenceGrowsOnEveryTakeoverAndARenewalKeepsIt() throws {
        let f = try DispatchFixture()
        let store = f.store
        let first = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
        #expect(first.fence == ShardFence(shard: Self.shard, fence: 1) && first.owner == Self.a && first.isLive)
        #expect(try store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000) == nil)
        let renewed = try #require(try store.renewLease(first.fence, for: Self.a, durationMilliseconds: 90_000))
        #expect(renewed.fence == first.fence)
        #expect(renewed.expiresAt! > first.expiresAt!)  // both set on a lease just written
        #expect(try store.renewLease(first.fence, for: Self.b, durationMilliseconds: 60_000) == nil, "not B's")
        #expect(
            try store.renewLease(ShardFence(shard: Self.shard, fence: 7), for: Self.a, durationMilliseconds: 1) == nil)
        // Released: taken at once, under the next fence.
        #expect(try store.releaseLease(first.fence, for: Self.a))
        #expect(try !store.releaseLease(first.fence, for: Self.a))
        let second = try #require(try store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000))
        #expect(second.fence.fence == 2)
        // Expired on the database's clock: B can no longer renew, and A takes over under fence 3.
        try f.expireLease(of: Self.shard)
        #expect(try store.renewLease(second.fence, for: Self.b, durationMilliseconds: 60_000) == nil)
        let third = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
        #expect(third.fence.fence == 3)
        // The holder acquiring again (after it stopped acting) is a takeover too.
        #expect(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000)?.fence.fence == 4)
        let history = try f.sql.query(
            "SELECT fence, owner FROM dispatch_shard_fences WHERE shard = $1 ORDER BY fence", [Self.shard.index]
        ).rows.map { "\(try $0.int(0) ?? -1) \($0.string(1) ?? "")" }
        #expect(history == ["1 node-a", "2 node-b", "3 node-a", "4 node-a"])
        let all = try store.leases()
        #expect(all.count == 64 && all.map(\.shard) == DispatchShard.all)
        #expect(all[Self.shard.index].owner == Self.a && all[Self.shard.index].isLive)
        #expect(all.filter(\.isLive).count == 1)
    }

    @Test func theDatabaseSaysWhatTimeItIs() throws {
        let f = try DispatchFixture()
        let before = Int64(Date().timeIntervalSince1970 * 1_000)
        let database = try f.store.databaseMilliseconds()
        let after = Int64(Date().timeIntervalSince1970 * 1_000)
        // The same machine's clock: within the read's round trip (and a little rounding).
        #expect(database >= before - 2 && database <= after + 2, "\(before) \(database) \(after)")
    }

    @Test func aLeaseRunsOutOnTheDatabasesClock() throws {
        let f = try DispatchFixture()
        let lease = try #require(try f.store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 300))
        #expect(try f.store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 300) == nil)
        #expect(eventually(within: 5) { (try? f.store.leases()[Self.shard.index].isLive) == false })
        #expect(try f.store.renewLease(lease.fence, for: Self.a, durationMilliseconds: 300) == nil)
        #expect(try f.store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 300)?.fence.fence == 2)
    }

    @Test func liveNodesAreTheOnesAnnouncedAndNotWithdrawn() throws {
        let f = try DispatchFixture()
        #expect(try f.store.announce(Self.b, aliveMilliseconds: 60_000) == [Self.b])
        #expect(try f.store.announce(Self.a, aliveMilliseconds: 60_000) == [Self.a, Self.b])
        try f.store.withdraw(Self.b)
        #expect(try f.store.announce(Self.a, aliveMilliseconds: 60_000) == [Self.a])
        _ = try f.store.announce(Self.b, aliveMilliseconds: 200)  // B's heartbeat runs out: it is no longer counted
        #expect(eventually(within: 5) { (try? f.store.announce(Self.a, aliveMilliseconds: 60_000)) == [Self.a] })
    }

    @Test func everyFencedWriteIsRefusedUnderAStaleFenceAndLeavesNothing() throws {
        let f = try DispatchFixture()
        let store = f.store
        let booking = try f.booking(in: Self.shard)
        let driver = try f.driver()
        let old = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000)).fence
        let batch = OfferBatch(booking: booking, batch: 1, drivers: [driver], openMilliseconds: 10_000)
        #expect(try store.writeOffers(batch, under: old) == [driver])
        try store.releaseLease(old, for: Self.a)
        let new = try #require(try store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000)).fence
        #expect(new.fence > old.fence)
        let next = OfferBatch(booking: booking, batch: 2, drivers: [try f.driver()], openMilliseconds: 10_000)
        #expect(refusedAsStale { _ = try store.writeOffers(next, under: old) })
        #expect(refusedAsStale { try store.closeBatch(1, of: booking, under: old) })
        #expect(refusedAsStale { try store.giveUp(booking, under: old) })
        #expect(refusedAsStale { _ = try store.markAlert(of: booking, thresholdSeconds: 60, under: old) })
        #expect(
            refusedAsStale { try store.scheduleDeadline(.pickupOverdue, of: booking, inMilliseconds: 5, under: old) })
        // Nothing of the refused writes is there: the first batch is still open, no second batch, no mark.
        #expect(try store.offers(of: booking).map(\.state) == [.open])
        #expect(try f.count("dispatch_alert_marks") == 0)
        #expect(try f.count("dispatch_deadlines", where: "kind = 'pickup_overdue'") == 0)
        // The current fence writes.
        #expect(try store.closeBatch(1, of: booking, under: new) == 1)
        #expect(try store.markAlert(of: booking, thresholdSeconds: 60, under: new))
        // Expired but not taken by anyone: refused too (the owner may be paused; nobody may act).
        try f.expireLease(of: Self.shard)
        #expect(refusedAsStale { try store.giveUp(booking, under: new) })
    }

    @Test func aBatchOfOffersClosesTheEarlierBatchAndSetsTheOfferDeadline() throws {
        let f = try DispatchFixture()
        let store = f.store
        let booking = try f.booking(in: Self.shard)
        let (d1, d2, d3) = (try f.driver(), try f.driver(), try f.driver())
        let fence = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
            .fence
        #expect(
            try store.writeOffers(
                .init(booking: booking, batch: 1, drivers: [d1, d2], openMilliseconds: 10_000),
                under: fence
            ).sorted() == [d1, d2].sorted())
        #expect(
            try store.writeOffers(
                .init(booking: booking, batch: 2, drivers: [d3], openMilliseconds: 20_000),
                under: fence) == [d3])
        let offers = try store.offers(of: booking)
        #expect(offers.map(\.batch) == [1, 1, 2])
        #expect(offers.map(\.state) == [.expired, .expired, .open])
        #expect(offers.allSatisfy { $0.fence == fence })
        let deadline = try f.sql.query(
            """
            SELECT (extract(epoch FROM d.due_at) * 1000)::bigint, d.fence FROM dispatch_deadlines d
            WHERE booking_id = $1 AND kind = 'offer_timeout'
            """, [booking.rawValue]
        ).first
        let due = try #require(try deadline?.int64(0))
        #expect(abs(due - offers[2].expiresAt.millisecondsSinceEpoch) < 1_000)
        #expect(try deadline?.int64(1) == fence.fence)
        try store.giveUp(booking, under: fence)
        #expect(try store.offers(of: booking).map(\.state) == [.expired, .expired, .withdrawn])
        #expect(try f.count("dispatch_deadlines") == 0)
    }

    @Test func aDriverHoldsAtMostOneOpenOffer() throws {
        let f = try DispatchFixture()
        let store = f.store
        let other = DispatchShard(12)
        let (first, second) = (try f.booking(in: Self.shard), try f.booking(in: other))
        let (d1, d2, d3) = (try f.driver(), try f.driver(), try f.driver())
        let fa = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000)).fence
        let fb = try #require(try store.acquireLease(of: other, for: Self.b, durationMilliseconds: 60_000)).fence
        _ = try store.writeOffers(
            .init(booking: first, batch: 1, drivers: [d1, d2], openMilliseconds: 60_000), under: fa)
        // d2 holds first's open offer: the other shard's owner offers second to d3 alone.
        #expect(
            try store.writeOffers(
                .init(booking: second, batch: 1, drivers: [d2, d3], openMilliseconds: 60_000),
                under: fb) == [d3])
        // Once d2's offer has run out, it is closed and d2 may be offered again.
        try f.sql.query(
            "UPDATE dispatch_offers SET expires_at = clock_timestamp() - interval '1 second' WHERE driver_id = $1",
            [d2.rawValue])
        #expect(
            try store.writeOffers(.init(booking: second, batch: 2, drivers: [d2], openMilliseconds: 60_000), under: fb)
                == [d2])
        #expect(try f.count("dispatch_offers", where: "state = 'open'") == 2, "d1 on first, d2 on second")
        // The unique index holds against any writer.
        let raw = #expect(throws: PostgresError.self) {
            try f.sql.query(
                """
                INSERT INTO dispatch_offers (booking_id, shard, driver_id, batch, state, expires_at, fence, written_at)
                VALUES ($1, $2, $3, 9, 'open', now() + interval '1 minute', 1, now())
                """, [first.rawValue, Self.shard.index, d2.rawValue] as [any PostgresBindable])
        }
        #expect(raw?.code == .uniqueViolation)
    }

    @Test func dueDeadlinesAreClaimedOnceAcrossSweepersAndFiredByCompareAndSet() throws {
        let f = try DispatchFixture()
        let store = f.store
        let fence = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
            .fence
        let bookings = try (0..<8).map { _ in try f.booking(in: Self.shard) }
        for booking in bookings {
            try store.scheduleDeadline(.noShowWait, of: booking, inMilliseconds: 1, under: fence)
        }
        let later = try f.booking(in: Self.shard)
        try store.scheduleDeadline(.pickupOverdue, of: later, inMilliseconds: 600_000, under: fence)
        // The owner is gone (its lease ran out): the sweep does not need one.
        try f.expireLease(of: Self.shard)
        #expect(
            eventually(within: 5) { (try? f.count("dispatch_deadlines", where: "due_at <= clock_timestamp()")) == 8 })
        // Eight sweepers at once, one deadline each: SKIP LOCKED hands every deadline to exactly one of them.
        let claimed = try ThreadTask<[DueDeadline]>.all(8) { n in
            try store.claimDueDeadlines(
                for: ClusterNodeID("sweeper-\(n)"), limit: 1, retryAfterMilliseconds: 60_000,
                offerTimeoutsOf: DispatchShard.all)
        }.flatMap { $0 }
        #expect(claimed.count == 8)
        #expect(Set(claimed.map(\.booking)) == Set(bookings))
        #expect(claimed.allSatisfy { $0.kind == .noShowWait && $0.attempts == 1 && $0.fence == fence })
        #expect(
            try store.claimDueDeadlines(
                for: Self.b, limit: 10, retryAfterMilliseconds: 60_000, offerTimeoutsOf: DispatchShard.all
            ).isEmpty)
        // Fired once; a second firing finds nothing.
        #expect(try store.fireDeadline(claimed[0]))
        #expect(try !store.fireDeadline(claimed[0]))
        // A claim not fired in time is due again for any sweep, with its attempts counted.
        try f.sql.query(
            "UPDATE dispatch_deadlines SET claimed_until = clock_timestamp() - interval '1 second' WHERE booking_id = $1",
            [claimed[1].booking.rawValue])
        let again = try store.claimDueDeadlines(
            for: Self.b, limit: 10, retryAfterMilliseconds: 60_000, offerTimeoutsOf: DispatchShard.all)
        #expect(again.map(\.booking) == [claimed[1].booking] && again.first?.attempts == 2)
        // Rescheduled by a new owner meanwhile: the old claim no longer fires it.
        let new = try #require(try store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000)).fence
        try store.scheduleDeadline(.noShowWait, of: claimed[2].booking, inMilliseconds: 60_000, under: new)
        #expect(try !store.fireDeadline(claimed[2]))
        #expect(try f.count("dispatch_deadlines") == 8)
    }

    @Test func offerTimeoutsAreClaimedOnlyByTheirShardsOwnerTripTimeoutsByAnyNode() throws {
        let f = try DispatchFixture()
        let store = f.store
        let fence = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
            .fence
        let offered = try f.booking(in: Self.shard)
        _ = try store.writeOffers(
            .init(booking: offered, batch: 1, drivers: [try f.driver()], openMilliseconds: 1), under: fence)
        let waiting = try f.booking(in: Self.shard)
        try store.scheduleDeadline(.noShowWait, of: waiting, inMilliseconds: 1, under: fence)
        #expect(
            eventually(within: 5) { (try? f.count("dispatch_deadlines", where: "due_at <= clock_timestamp()")) == 2 })
        // Node b owns other shards: it fires the trip timeout, not the offer timeout it would only drop.
        let byB = try store.claimDueDeadlines(
            for: Self.b, limit: 10, retryAfterMilliseconds: 60_000, offerTimeoutsOf: [DispatchShard(12)])
        #expect(byB.map(\.booking) == [waiting] && byB.first?.kind == .noShowWait)
        let byA = try store.claimDueDeadlines(
            for: Self.a, limit: 10, retryAfterMilliseconds: 60_000, offerTimeoutsOf: [Self.shard])
        #expect(byA.map(\.booking) == [offered] && byA.first?.kind == .offerTimeout)
    }

    @Test func aTransitionFromAnyNodeWritesTheNextDeadlineUnderTheLatestFenceAndNamesTheWithdrawn() throws {
        let f = try DispatchFixture()
        let store = f.store
        // A shard never leased: no fence to write under, so the first owner's takeover writes it.
        let unowned = try f.booking(in: DispatchShard(13))
        var stored = try #require(try store.booking(unowned))
        let (first, winner, other) = (try f.driver(), try f.driver(), try f.driver())
        stored.status = .accepted
        stored.driverID = first
        stored.version += 1
        let accept = { (b: Booking) in
            TripTransitionRecord(
                bookingID: b.id, from: .dispatching, to: .accepted, event: .accept, actor: .driver(b.driverID!),
                at: Stores.start)
        }
        _ = try store.transition(
            stored, record: accept(stored), then: NextDeadline(.pickupOverdue, inMilliseconds: 60_000))
        #expect(try f.count("dispatch_deadlines") == 0)

        let old = try #require(try store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
        try store.releaseLease(old.fence, for: Self.a)
        let latest = try #require(try store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000))
        let booking = try f.booking(in: Self.shard)
        _ = try store.writeOffers(
            .init(booking: booking, batch: 1, drivers: [winner, other], openMilliseconds: 60_000), under: latest.fence)
        var taken = try #require(try store.booking(booking))
        taken.status = .accepted
        taken.driverID = winner
        taken.version += 1
        // Accepted on a node that owns nothing: the other driver's offer is withdrawn and named, the overdue
        // deadline written under the shard's latest fence, the offer deadline gone.
        let withdrawn = try store.acceptOffer(
            taken, record: accept(taken), then: NextDeadline(.pickupOverdue, inMilliseconds: 60_000))
        #expect(withdrawn == [other])
        let rows = try f.sql.query(
            "SELECT kind, fence FROM dispatch_deadlines WHERE booking_id = $1", [booking.rawValue]
        ).rows
        #expect(rows.map { $0.string(0) } == ["pickup_overdue"])
        #expect(try rows.first?.int64(1) == latest.fence.fence)
        // Ended: its deadlines go with it.
        var ended = taken
        ended.status = .cancelledByDriver
        ended.version += 1
        _ = try store.transition(
            ended,
            record: TripTransitionRecord(
                bookingID: booking, from: .accepted, to: .cancelledByDriver, event: .driverCancel,
                actor: .driver(winner), at: Stores.start),
            then: nil)
        #expect(try f.count("dispatch_deadlines") == 0)
    }

    @Test func anArrivalAlertIsMarkedOnceEvenAcrossOwners() throws {
        let f = try DispatchFixture()
        let booking = try f.booking(in: Self.shard)
        let old = try #require(try f.store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
        #expect(try f.store.markAlert(of: booking, thresholdSeconds: 120, under: old.fence))
        #expect(try !f.store.markAlert(of: booking, thresholdSeconds: 120, under: old.fence))
        try f.store.releaseLease(old.fence, for: Self.a)
        let new = try #require(try f.store.acquireLease(of: Self.shard, for: Self.b, durationMilliseconds: 60_000))
        #expect(try !f.store.markAlert(of: booking, thresholdSeconds: 120, under: new.fence))
        #expect(try f.store.markAlert(of: booking, thresholdSeconds: 60, under: new.fence))
    }

    @Test func aBookingsDispatchShardIsTheShardTheStoreKeeps() {
        for _ in 0..<500 {
            let id = BookingID.random()
            #expect(DispatchShard(of: id).index == PostgresStore.shard(of: id))
        }
    }
}

/// The lease row is locked `FOR SHARE` by every fenced write until it commits, so a takeover cannot slip in
/// between a write's check and its commit.
@Suite struct FencedWriteOrderingTests {
    /// A write in flight under the old fence holds the lease row `FOR SHARE` until it commits: a takeover is not
    /// granted past it (so every write under fence f commits before f+1 exists), and does not wait for it either,
    /// since a writer paused mid-transaction would hold every node's lease keeper so (a chaos run froze all shards
    /// for 20 s that way): it is skipped and asked again.
    @Test func aTakeoverIsNeitherGrantedPastAFencedWriteInFlightNorWaitsForIt() throws {
        let f = try DispatchFixture()
        let shard = DispatchShard(20)
        let lease = try #require(
            try f.store.acquireLease(of: shard, for: ClusterNodeID("a"), durationMilliseconds: 1_000))
        let writer = try PostgresConnection(conninfo: f.conninfo)
        try writer.execute("BEGIN")
        let checked = try writer.query(
            "WITH \(PostgresStore.fencedLease) SELECT count(*) FROM lease",
            [shard.index, lease.fence.fence] as [any PostgresBindable])
        #expect(try checked.first?.int(0) == 1, "the writer's check passed while the lease was live")
        #expect(eventually(within: 5) { (try? f.store.leases()[shard.index].isLive) == false })
        let store = f.store
        let takeover = ThreadTask {
            try store.acquireLease(of: shard, for: ClusterNodeID("b"), durationMilliseconds: 60_000)?.fence.fence
        }
        let done = Atomic<Bool>(false)
        let watcher = ThreadTask {
            _ = try takeover.value()
            done.store(true, ordering: .releasing)
        }
        #expect(eventually(within: 10) { done.load(ordering: .acquiring) }, "the takeover waited for the writer")
        try writer.execute("COMMIT")
        try watcher.value()
        #expect(try takeover.value() == nil, "granted while a write under the old fence was in flight")
        let next = try store.acquireLease(of: shard, for: ClusterNodeID("b"), durationMilliseconds: 60_000)
        #expect(next?.fence.fence == 2)
    }
}

/// Every transaction that writes a trip's rows takes its booking row first (rule 16 in
/// docs/dispatch-ownership.md). Each test holds the booking on a connection of its own until both sides are
/// waiting, then lets them go: taken in another order, the two meet in a deadlock that PostgreSQL breaks only
/// after `deadlock_timeout`, and the losing batch runs again (`retriedWriteBatches`).
@Suite struct TripLockOrderTests {
    /// Two nodes' stores on one database, a trip offered to two drivers, and the trip held on a raw connection.
    struct Race {
        let f: DispatchFixture
        let other: PostgresStore
        let trip: BookingID
        let drivers: [DriverID]
        let holder: PostgresConnection

        init() throws {
            f = try DispatchFixture()
            other = try PostgresStore(.init(conninfo: f.conninfo, connections: 2, writers: 1))
            let shard = DispatchShard(21)
            let lease = try #require(
                try f.store.acquireLease(of: shard, for: ClusterNodeID("a"), durationMilliseconds: 60_000))
            trip = try f.booking(in: shard)
            drivers = [try f.driver(), try f.driver()]
            let offered = try f.store.writeOffers(
                OfferBatch(booking: trip, batch: 1, drivers: drivers, openMilliseconds: 60_000), under: lease.fence)
            #expect(Set(offered) == Set(drivers))
            holder = try PostgresConnection(conninfo: f.conninfo)
            try holder.execute("BEGIN")
            _ = try holder.query("SELECT 1 FROM bookings WHERE id = $1 FOR NO KEY UPDATE", [trip.rawValue])
        }

        /// Waits until `n` of the database's sessions wait on a lock, then ends the holder's transaction.
        func release(whenWaiting n: Int) throws {
            let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            #expect(eventually(within: 10) { (try? f.sql.query(waiting).first?.int(0)) == n }, "both sides wait")
            try holder.execute("COMMIT")
        }

        /// Batches run again on either store since it opened (each one a deadlock PostgreSQL broke).
        var retried: Int { f.store.retriedWriteBatches + other.retriedWriteBatches }

        func accept(by driver: DriverID, on store: PostgresStore) throws -> ThreadTask<[DriverID]> {
            var taken = try #require(try store.booking(trip))
            taken.status = .accepted
            taken.driverID = driver
            taken.version += 1
            let record = TripTransitionRecord(
                bookingID: trip, from: .dispatching, to: .accepted, event: .accept, actor: .driver(driver),
                at: Stores.start)
            let accepted = taken
            return ThreadTask {
                try store.acceptOffer(
                    accepted, record: record, then: NextDeadline(.pickupOverdue, inMilliseconds: 60_000))
            }
        }
    }

    /// Two drivers accept one trip at once on two nodes: one wins, the other is told the trip was taken, and
    /// neither waits on the other's offer while holding the booking.
    @Test func twoAcceptsOfOneTripOnTwoNodesQueueInsteadOfDeadlocking() throws {
        let race = try Race()
        defer { race.other.close() }
        let first = try race.accept(by: race.drivers[0], on: race.f.store)
        let second = try race.accept(by: race.drivers[1], on: race.other)
        try race.release(whenWaiting: 2)
        let outcomes = [Result { try first.value() }, Result { try second.value() }]
        let won = outcomes.filter { if case .success = $0 { true } else { false } }
        #expect(won.count == 1)
        for case .failure(let error) in outcomes {
            #expect((error as? CoreError)?.code == .transitionConflict, "the loser hears the trip was taken")
        }
        #expect(try race.f.count("dispatch_offers", where: "state = 'accepted'") == 1)
        #expect(try race.f.count("dispatch_offers", where: "state = 'withdrawn'") == 1)
        #expect(race.retried == 0, "a deadlock between the two accepts")
    }
}

extension ShardLeaseStoreTests {
    @Test func renewalsOfManyShardsGoInOneStatementAndLeaveOutTheLostOnes() throws {
        let f = try DispatchFixture()
        let store = f.store
        let held = try DispatchShard.all.prefix(5).map {
            try #require(try store.acquireLease(of: $0, for: Self.a, durationMilliseconds: 60_000)).fence
        }
        try f.expireLease(of: held[1].shard)
        let stale = ShardFence(shard: held[3].shard, fence: held[3].fence + 1)
        let renewed = try store.renewLeases(
            [held[0], held[1], held[2], stale, held[4]], for: Self.a, durationMilliseconds: 60_000)
        #expect(renewed.map(\.fence) == [held[0], held[2], held[4]])
        #expect(try store.renewLeases(held, for: Self.b, durationMilliseconds: 60_000).isEmpty)
        #expect(try store.renewLeases([], for: Self.a, durationMilliseconds: 60_000).isEmpty)
    }

    /// A transaction of the store left open (its node paused between two statements) is ended by the server after
    /// `idleInTransactionMilliseconds`, and its row locks with it.
    @Test func aTransactionLeftOpenByAPausedNodeIsEndedByTheServer() throws {
        let conninfo = try SharedPostgres.newDatabase()
        var configuration = PostgresStore.Configuration(conninfo: conninfo, connections: 2, writers: 1)
        configuration.idleInTransactionMilliseconds = 300
        let store = try PostgresStore(configuration)
        defer { store.close() }
        #expect(try store.read { try $0.query("SHOW idle_in_transaction_session_timeout").first?.string(0) } == "300ms")
        // A pooled connection stops inside a transaction holding a lease row, as a paused node's would.
        try store.pool.withConnection { c in
            _ = try c.execute("BEGIN")
            _ = try c.query("SELECT shard FROM dispatch_shard_leases WHERE shard = $1 FOR UPDATE", [Self.shard.index])
        }
        let other = try PostgresConnection(conninfo: conninfo)
        _ = try other.execute("SET lock_timeout = '10s'")
        // Without the server ending it, this waits 10 s and fails with a lock timeout.
        let updated = try other.query(
            "UPDATE dispatch_shard_leases SET owner = NULL WHERE shard = $1", [Self.shard.index]
        ).affectedRows
        #expect(updated == 1)
    }

    /// Offer batches commit without waiting for the WAL flush; every other write waits for it.
    @Test func offersAloneCommitWithoutWaitingForTheFlush() throws {
        let f = try DispatchFixture()
        let setting = "SELECT current_setting('synchronous_commit')"
        #expect(try f.store.writeUnflushed { try $0.query(setting).first?.string(0) } == "off")
        #expect(try f.store.write { try $0.query(setting).first?.string(0) } == "on")
        // And the offers do go through it: written, read back, counted once.
        let lease = try #require(try f.store.acquireLease(of: Self.shard, for: Self.a, durationMilliseconds: 60_000))
        let trip = try f.booking(in: Self.shard)
        let driver = try f.driver()
        let before = f.store.writeStatistics.writes
        let offered = try f.store.writeOffers(
            OfferBatch(booking: trip, batch: 1, drivers: [driver], openMilliseconds: 5_000), under: lease.fence)
        #expect(offered == [driver])
        #expect(try f.count("dispatch_offers", where: "state = 'open'") == 1)
        #expect(f.store.writeStatistics.writes - before == 1)
    }

    /// The store reads the server's deadlock_timeout (`cab serve` warns when it is over 200 ms); the tests' server
    /// runs with the 100 ms cab expects.
    @Test func theStoreReadsTheServersDeadlockTimeout() throws {
        let f = try DispatchFixture()
        #expect(try f.store.deadlockTimeoutMilliseconds() == 100)
    }
}
