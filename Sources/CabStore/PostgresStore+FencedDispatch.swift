import CabCore
import CabPostgres

/// What a shard's owner writes under its fence (schema v4): offers, trip deadlines and arrival alert marks.
///
/// Every such statement begins with `lease`, which reads the shard's lease row only when it still has the
/// writer's fence, an owner and an unexpired lease on the database's clock, and locks it `FOR SHARE` until the
/// commit: a takeover (which updates that row) waits for the write to commit, and a write that comes after a
/// takeover finds no row. The statement then writes only `FROM lease` and reports whether the lease was there,
/// so a stale fence is refused by the statement itself (`CoreError` `.staleFence`), never by a check made
/// earlier. Writes join the group commit; each returns once durable.
extension PostgresStore: FencedDispatchRepository {
    /// The lease check that starts every fenced statement: `$1` is the shard, `$2` the fence.
    static let fencedLease = """
        lease AS (
            SELECT shard FROM dispatch_shard_leases
            WHERE shard = $1::smallint AND fence = $2::bigint AND owner IS NOT NULL AND expires_at > clock_timestamp()
            FOR SHARE
        )
        """

    /// Committed without waiting for the WAL flush (`writeUnflushed`): the offers are on the drivers' screens a
    /// disk flush sooner. A server crash within the flush delay loses them, which breaks no rule: an accept of a
    /// lost offer finds none open and is refused (an accept that committed flushed the offer with it), the trip
    /// stays `dispatching` and its owner (or the next, resuming from the stored offers) offers it again, and the
    /// dispatch deadline, written flushed when dispatch began, still ends it.
    public func writeOffers(_ batch: OfferBatch, under fence: ShardFence) throws -> [DriverID] {
        Self.requireShard(fence, of: batch.booking)
        let drivers = Self.textArray(batch.drivers.map(\.rawValue))
        return try writeUnflushed { c in
            // Shared: this writer's batches hold offers only and never update the booking, so they never upgrade it.
            try Self.lockTrip(batch.booking, .share, on: c)
            try Self.fenced(
                c, fence, writing: "the offers of \(batch.booking)",
                """
                WITH \(Self.fencedLease), closed AS (
                    UPDATE dispatch_offers SET state = 'expired', closed_at = clock_timestamp()
                    WHERE booking_id = $3::text AND batch < $4::integer AND state = 'open'
                        AND EXISTS (SELECT 1 FROM lease)
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM lease), (SELECT count(*) FROM closed)
                """, [batch.booking.rawValue, batch.batch])
            // Any node may close an offer that has run out: nothing can be done with it any more. Another trip's
            // offer, so its row is skipped when locked (rule 16: that trip's booking was not taken first); the
            // transaction holding it is changing it already, and the insert below waits for it to commit.
            try c.query(
                """
                UPDATE dispatch_offers SET state = 'expired', closed_at = clock_timestamp()
                WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM dispatch_offers
                    WHERE driver_id = ANY($1::text[]) AND state = 'open' AND expires_at <= clock_timestamp()
                    FOR UPDATE SKIP LOCKED))
                """, [drivers])
            let made = try Self.fenced(
                c, fence, writing: "the offers of \(batch.booking)",
                """
                WITH \(Self.fencedLease), made AS (
                    INSERT INTO dispatch_offers
                        (booking_id, shard, driver_id, batch, state, expires_at, fence, written_at)
                    SELECT $3::text, lease.shard, d, $4::integer, 'open',
                        clock_timestamp() + $5::float8 * interval '1 millisecond', $2::bigint, clock_timestamp()
                    FROM lease CROSS JOIN unnest($6::text[]) AS d
                    WHERE EXISTS (SELECT 1 FROM bookings WHERE id = $3::text AND status = 'dispatching')
                    ON CONFLICT DO NOTHING
                    RETURNING driver_id
                )
                SELECT (SELECT count(*) FROM lease), (SELECT string_agg(driver_id, ',') FROM made)
                """,
                [batch.booking.rawValue, batch.batch, batch.openMilliseconds, drivers] as [any PostgresBindable])
            // An insert that met a driver's open offer being closed by another transaction waited for it; its
            // `written_at` was read before the wait. Taken again now, it follows that offer's closing, so two
            // offers of one driver never look open at once (the checker compares these times).
            try c.query(
                """
                UPDATE dispatch_offers SET written_at = clock_timestamp()
                WHERE booking_id = $1::text AND batch = $2::integer AND state = 'open'
                """, [batch.booking.rawValue, batch.batch])
            try Self.upsertDeadline(.offerTimeout, of: batch.booking, in: batch.openMilliseconds, under: fence, on: c)
            let offered = Set((made.string(1) ?? "").split(separator: ",").map(String.init))
            return batch.drivers.filter { offered.contains($0.rawValue) }
        }
    }

    @discardableResult
    public func closeBatch(_ batch: Int, of booking: BookingID, under fence: ShardFence) throws -> Int {
        Self.requireShard(fence, of: booking)
        return try write { c in
            try Self.lockTrip(booking, on: c)
            let row = try Self.fenced(
                c, fence, writing: "the end of batch \(batch) of \(booking)",
                """
                WITH \(Self.fencedLease), closed AS (
                    UPDATE dispatch_offers SET state = 'expired', closed_at = clock_timestamp()
                    WHERE booking_id = $3::text AND batch = $4::integer AND state = 'open'
                        AND EXISTS (SELECT 1 FROM lease)
                    RETURNING 1
                ), gone AS (
                    DELETE FROM dispatch_deadlines
                    WHERE booking_id = $3::text AND kind = 'offer_timeout' AND EXISTS (SELECT 1 FROM lease)
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM lease), (SELECT count(*) FROM closed), (SELECT count(*) FROM gone)
                """, [booking.rawValue, batch])
            return try row.int(1) ?? 0
        }
    }

    public func giveUp(_ booking: BookingID, under fence: ShardFence) throws {
        Self.requireShard(fence, of: booking)
        try write { c in
            try Self.lockTrip(booking, on: c)
            try Self.fenced(
                c, fence, writing: "giving up on \(booking)",
                """
                WITH \(Self.fencedLease), withdrawn AS (
                    UPDATE dispatch_offers SET state = 'withdrawn', closed_at = clock_timestamp()
                    WHERE booking_id = $3::text AND state = 'open' AND EXISTS (SELECT 1 FROM lease)
                    RETURNING 1
                ), gone AS (
                    DELETE FROM dispatch_deadlines WHERE booking_id = $3::text AND EXISTS (SELECT 1 FROM lease)
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM lease), (SELECT count(*) FROM withdrawn), (SELECT count(*) FROM gone)
                """, [booking.rawValue])
        }
    }

    public func markAlert(of booking: BookingID, thresholdSeconds: Int, under fence: ShardFence) throws -> Bool {
        Self.requireShard(fence, of: booking)
        return try write { c in
            let row = try Self.fenced(
                c, fence, writing: "the arrival alert of \(booking)",
                """
                WITH \(Self.fencedLease), marked AS (
                    INSERT INTO dispatch_alert_marks (booking_id, shard, threshold_s, fence, written_at)
                    SELECT $3::text, lease.shard, $4::integer, $2::bigint, clock_timestamp() FROM lease
                    ON CONFLICT DO NOTHING
                    RETURNING 1
                )
                SELECT (SELECT count(*) FROM lease), (SELECT count(*) FROM marked)
                """, [booking.rawValue, thresholdSeconds])
            return try row.int(1) == 1
        }
    }

    public func scheduleDeadline(
        _ kind: TripDeadlineKind, of booking: BookingID, inMilliseconds milliseconds: Int64, under fence: ShardFence
    ) throws {
        Self.requireShard(fence, of: booking)
        try write { c in
            try Self.lockTrip(booking, on: c)
            try Self.upsertDeadline(kind, of: booking, in: milliseconds, under: fence, on: c)
        }
    }

    public func claimDueDeadlines(
        for node: ClusterNodeID, limit: Int, retryAfterMilliseconds: Int64, offerTimeoutsOf shards: [DispatchShard]
    ) throws -> [DueDeadline] {
        precondition(limit > 0 && retryAfterMilliseconds > 0, "claim some deadlines for a while")
        return try leaseStatement { c in
            try c.query(
                """
                WITH due AS (
                    SELECT booking_id, kind FROM dispatch_deadlines
                    WHERE due_at <= clock_timestamp() AND (claimed_until IS NULL OR claimed_until <= clock_timestamp())
                        AND (kind <> 'offer_timeout' OR shard = ANY($4::smallint[]))
                    ORDER BY due_at LIMIT $2::integer
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE dispatch_deadlines AS d
                SET claimed_by = $1::text, attempts = d.attempts + 1,
                    claimed_until = clock_timestamp() + $3::float8 * interval '1 millisecond'
                FROM due WHERE d.booking_id = due.booking_id AND d.kind = due.kind
                RETURNING d.booking_id, d.kind, (extract(epoch FROM d.due_at) * 1000)::bigint, d.shard, d.fence,
                    d.generation, d.attempts
                """,
                [node.rawValue, limit, retryAfterMilliseconds, Self.textArray(shards.map { String($0.index) })]
                    as [any PostgresBindable]
            ).rows.map { row in
                guard let booking = row.string(0).map(BookingID.init(uncheckedRawValue:)),
                    let kind = row.string(1).flatMap(TripDeadlineKind.init(rawValue:)),
                    let due = try row.int64(2), let fence = try Self.storedFence(row, shard: 3, fence: 4),
                    let generation = try row.int64(5), let attempts = try row.int(6)
                else { throw StoreError(.corruptRow, "A trip deadline row is damaged.") }
                return DueDeadline(
                    booking: booking, kind: kind, dueAt: Instant(millisecondsSinceEpoch: due), fence: fence,
                    generation: generation, attempts: attempts)
            }.sorted { ($0.dueAt, $0.booking) < ($1.dueAt, $1.booking) }
        }
    }

    public func fireDeadline(_ deadline: DueDeadline) throws -> Bool {
        try leaseStatement { c in
            try c.query(
                "DELETE FROM dispatch_deadlines WHERE booking_id = $1::text AND kind = $2::text AND generation = $3::bigint",
                [deadline.booking.rawValue, deadline.kind.rawValue, deadline.generation] as [any PostgresBindable]
            ).affectedRows == 1
        }
    }

    public func offers(of booking: BookingID) throws -> [StoredOffer] {
        try read { c in
            try c.query(
                """
                SELECT driver_id, batch, state, (extract(epoch FROM expires_at) * 1000)::bigint, shard, fence,
                    greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint
                FROM dispatch_offers WHERE booking_id = $1::text ORDER BY batch, driver_id
                """, [booking.rawValue]
            ).rows.map { row in
                guard let driver = row.string(0).map(DriverID.init(uncheckedRawValue:)), let batch = try row.int(1),
                    let state = row.string(2).flatMap(StoredOffer.State.init(rawValue:)),
                    let expires = try row.int64(3), let fence = try Self.storedFence(row, shard: 4, fence: 5),
                    let remaining = try row.int64(6)
                else { throw StoreError(.corruptRow, "An offer row is damaged.") }
                return StoredOffer(
                    booking: booking, driver: driver, batch: batch, state: state,
                    expiresAt: Instant(millisecondsSinceEpoch: expires), fence: fence,
                    remainingMilliseconds: state == .open ? remaining : 0)
            }
        }
    }

    public func transition(_ updated: Booking, record: TripTransitionRecord, then next: NextDeadline?) throws
        -> [DriverID]
    {
        guard let from = record.from, updated.id == record.bookingID else {
            preconditionFailure("a transition comes from a state")
        }
        return try write { c in
            let withdrawn = try Self.compareAndSetOrThrow(updated, record: record, from: from, on: c)
            if let next { try Self.upsertDeadlineUnderLatestFence(next, of: updated.id, on: c) }
            return withdrawn
        }
    }

    public func acceptOffer(_ updated: Booking, record: TripTransitionRecord, then next: NextDeadline?) throws
        -> [DriverID]
    {
        guard let driver = updated.driverID, let from = record.from, updated.id == record.bookingID else {
            preconditionFailure("an accept names its driver and comes from a state")
        }
        return try write { c in
            // The booking first (`lockTrip`); two accepts of one trip then queue on it instead of each holding its
            // own offer while waiting for the other's.
            try Self.lockTrip(updated.id, on: c)
            // Locked until the commit: a decline or a batch step of this offer waits for the accept, or wins.
            let held = try c.query(
                """
                SELECT 1 FROM dispatch_offers
                WHERE booking_id = $1::text AND driver_id = $2::text AND state = 'open'
                    AND expires_at > clock_timestamp()
                FOR UPDATE
                """, [updated.id.rawValue, driver.rawValue])
            guard held.first != nil else {
                // A trip that moved on (taken, cancelled) says so: the caller judges the accept against it again.
                let current = try c.query("SELECT status FROM bookings WHERE id = $1", [updated.id.rawValue]).first
                if let state = current?.string(0).flatMap(TripState.init(rawValue:)), state != from {
                    throw BookingRow.transitionConflict(state, record)
                }
                throw CoreError(
                    .offerNotOpen, "This trip is not offered to you (or the offer expired); wait for the next offer.")
            }
            let withdrawn = try Self.compareAndSetOrThrow(updated, record: record, from: from, on: c)  // and offers
            if let next { try Self.upsertDeadlineUnderLatestFence(next, of: updated.id, on: c) }
            return withdrawn
        }
    }

    public func declineOffer(of booking: BookingID, by driver: DriverID, at time: Instant) throws -> Bool {
        try write { c in
            try Self.lockTrip(booking, on: c)
            let closed = try c.query(
                """
                UPDATE dispatch_offers SET state = 'declined', closed_at = clock_timestamp()
                WHERE booking_id = $1::text AND driver_id = $2::text AND state = 'open'
                    AND expires_at > clock_timestamp()
                """, [booking.rawValue, driver.rawValue]
            ).affectedRows
            guard closed == 1 else { return false }
            try Self.insertDecline(of: booking, by: driver, at: time, on: c)
            return true
        }
    }

    // MARK: Internals

    /// How `lockTrip` holds the booking row.
    enum TripLock: String {
        /// As an update of the row does: for a job that may change the booking in the same transaction.
        case update = "FOR NO KEY UPDATE"
        /// Alongside other readers: for a transaction that only reads the booking (it must never upgrade).
        case share = "FOR SHARE"
    }

    /// The lock order of every transaction that writes a trip's rows (rule 16 in docs/dispatch-ownership.md): the
    /// booking row first, then its offers, then its deadlines. An update of `bookings` takes the booking first by
    /// itself; a job that writes the offers or deadlines without changing the booking calls this first, so that it
    /// queues behind a transition of the trip in flight (or the transition behind it) instead of each holding the
    /// row the other waits for. A group commit's batch holds every job's locks to its commit, so one job taking
    /// the offers first is enough for a deadlock with any batch that changes the trip.
    static func lockTrip(_ booking: BookingID, _ mode: TripLock = .update, on c: PostgresConnection) throws {
        try c.query("SELECT 1 FROM bookings WHERE id = $1::text \(mode.rawValue)", [booking.rawValue])
    }

    /// Sets `booking`'s deadline of `kind` (a new generation, unclaimed) under `fence`.
    static func upsertDeadline(
        _ kind: TripDeadlineKind, of booking: BookingID, in milliseconds: Int64, under fence: ShardFence,
        on c: PostgresConnection
    ) throws {
        try fenced(
            c, fence, writing: "the \(kind.rawValue) deadline of \(booking)",
            """
            WITH \(fencedLease), made AS (
                INSERT INTO dispatch_deadlines (booking_id, shard, kind, due_at, fence, written_at, generation)
                SELECT $3::text, lease.shard, $4::text, clock_timestamp() + $5::float8 * interval '1 millisecond',
                    $2::bigint, clock_timestamp(), 1
                FROM lease
                \(rescheduled)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM lease), (SELECT count(*) FROM made)
            """, [booking.rawValue, kind.rawValue, milliseconds] as [any PostgresBindable])
    }

    /// A deadline written again is a new generation, unclaimed.
    static let rescheduled = """
        ON CONFLICT (booking_id, kind) DO UPDATE SET due_at = excluded.due_at, fence = excluded.fence,
            written_at = excluded.written_at, generation = dispatch_deadlines.generation + 1,
            claimed_by = NULL, claimed_until = NULL, attempts = 0
        """

    /// Sets `booking`'s `next` deadline from a transition made on any node (not fenced): under the shard's latest
    /// fence, its lease row locked so that a takeover committing meanwhile is waited for (the row then carries the
    /// new fence, granted before this write). A shard never leased gets it from its first owner's takeover.
    static func upsertDeadlineUnderLatestFence(_ next: NextDeadline, of booking: BookingID, on c: PostgresConnection)
        throws
    {
        try c.query(
            """
            WITH lease AS (
                SELECT shard, fence FROM dispatch_shard_leases WHERE shard = $1::smallint AND fence > 0 FOR SHARE
            )
            INSERT INTO dispatch_deadlines (booking_id, shard, kind, due_at, fence, written_at, generation)
            SELECT $2::text, lease.shard, $3::text, clock_timestamp() + $4::float8 * interval '1 millisecond',
                lease.fence, clock_timestamp(), 1
            FROM lease
            \(rescheduled)
            """,
            [shard(of: booking), booking.rawValue, next.kind.rawValue, next.inMilliseconds] as [any PostgresBindable])
    }

    /// Runs a fenced statement (`$1` shard, `$2` fence, then `parameters`) whose first result column counts the
    /// `lease` rows: none means the fence is stale, and the write is refused.
    @discardableResult
    static func fenced(
        _ c: PostgresConnection, _ fence: ShardFence, writing what: String, _ sql: String,
        _ parameters: [any PostgresBindable]
    ) throws -> PostgresRow {
        let values: [any PostgresBindable] = [fence.shard.index, fence.fence] + parameters
        guard let row = try c.query(sql, values).first, try row.int(0) == 1 else {
            throw CoreError.staleFence(fence, writing: what)
        }
        return row
    }

    /// The fence a row was written under, from its `shard` and `fence` columns; nil when missing or out of range.
    static func storedFence(_ row: PostgresRow, shard: Int, fence: Int) throws -> ShardFence? {
        guard let index = try row.int(shard), (0..<DispatchShard.count).contains(index),
            let number = try row.int64(fence)
        else { return nil }
        return ShardFence(shard: DispatchShard(index), fence: number)
    }

    /// Traps when a write names a fence of another shard than the booking's: a programming error.
    static func requireShard(_ fence: ShardFence, of booking: BookingID) {
        precondition(fence.shard == DispatchShard(of: booking), "a booking is written under its own shard's fence")
    }
}
