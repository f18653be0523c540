import CabCore
import CabPostgres

extension PostgresStore: BookingRepository {
    /// A new booking in one statement (one round trip): with a key, `k` claims it (`ON CONFLICT DO NOTHING`) and
    /// the booking is inserted `FROM k`, so nothing is when the key was taken; each history row is inserted
    /// `FROM b`. It answers how many bookings went in (0: the key was taken). Single-row `SELECT`s, so that
    /// PostgreSQL types the untyped parameters from the target columns (a multi-row `VALUES` would type them
    /// text). The history's foreign key is checked at the statement's end, after the booking row went in.
    static func insertBooking(historyRows: Int, claimingKey: Bool) -> String {
        let bookingParameters = BookingRow.columns.split(separator: ",").count + 1  // the shard first
        var next = 1
        func parameters(_ count: Int) -> String {
            defer { next += count }
            return (next..<next + count).map { "$\($0)" }.joined(separator: ", ")
        }
        var steps: [String] = []
        let columns = "bookings (shard, \(BookingRow.columns))"
        if claimingKey {
            steps.append(
                "k AS (INSERT INTO idempotency_keys (rider_id, key, fingerprint, booking_id, created_ms) VALUES ("
                    + parameters(5) + ") ON CONFLICT DO NOTHING RETURNING 1)")
            steps.append("b AS (INSERT INTO \(columns) SELECT \(parameters(bookingParameters)) FROM k RETURNING id)")
        } else {
            steps.append("b AS (INSERT INTO \(columns) VALUES (\(parameters(bookingParameters))) RETURNING id)")
        }
        for row in 0..<historyRows {
            steps.append(
                "h\(row) AS (INSERT INTO booking_history (booking_id, step, from_status, to_status, event, actor_role, "
                    + "actor_id, at_ms, reason) SELECT \(parameters(9)) FROM b)")
        }
        return "WITH " + steps.joined(separator: ", ") + " SELECT count(*) FROM b"
    }

    /// `BookingRow.update` with PostgreSQL's `$N` placeholders (its `?N` are numbered, so the numbers carry over).
    static let updateBooking = BookingRow.update.replacingOccurrences(of: "?", with: "$")

    /// Stores a new booking with its history rows and idempotency key in one transaction, durable on return.
    ///
    /// The key goes in first (`ON CONFLICT DO NOTHING`): of two nodes racing one key, the second waits for the
    /// first's transaction, finds the key taken, and answers with the first booking (or a conflict when the
    /// request differs), so both agree.
    public func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord]
    ) throws -> BookingCreation {
        try BookingRow.checkNew(booking, idempotencyKey: idempotencyKey, transitions: transitions)
        return try write { c in
            try Self.insert(booking, idempotencyKey: idempotencyKey, transitions: transitions, on: c)
        }
    }

    /// The idempotency key (first), the booking and its history rows, in one statement; or the first booking made
    /// with the key.
    private static func insert(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord],
        on c: PostgresConnection
    ) throws -> BookingCreation {
        var values: [PostgresValue] = []
        if let key = idempotencyKey {
            values += [
                .text(booking.riderID.rawValue), .text(key.key), .text(key.requestFingerprint),
                .text(booking.id.rawValue), .int(booking.createdAt.millisecondsSinceEpoch),
            ]
        }
        values.append(.int(Int64(Self.shard(of: booking.id))))
        values += PostgresValue.from(BookingRow.values(booking))
        let records = [BookingRow.bookRecord(booking)] + transitions
        for (i, r) in records.enumerated() {
            values += [
                .text(r.bookingID.rawValue), .int(Int64(i + 1)), r.from.map { .text($0.rawValue) } ?? .null,
                .text(r.to.rawValue),
                .text(r.event.rawValue), .text(r.actor.role.rawValue), r.actor.id.map(PostgresValue.text) ?? .null,
                .int(r.at.millisecondsSinceEpoch), r.reason.map(PostgresValue.text) ?? .null,
            ]
        }
        let sql = Self.insertBooking(historyRows: records.count, claimingKey: idempotencyKey != nil)
        let inserted = try c.query(sql, values: values).first.map { try $0.int64(0) ?? 0 } ?? 0
        guard inserted == 0, let key = idempotencyKey else { return BookingCreation(booking: booking, created: true) }
        // The key was taken (by a retry, or by another node whose transaction this one waited for).
        let earlier = try c.query(
            "SELECT fingerprint, booking_id FROM idempotency_keys WHERE rider_id = $1 AND key = $2",
            [booking.riderID.rawValue, key.key]
        ).first
        guard let earlier, let fingerprint = earlier.string(0), let id = earlier.string(1) else {
            throw StoreError(.corruptRow, "An idempotency key vanished while it was read.")
        }
        guard fingerprint == key.requestFingerprint else { throw BookingRow.idempotencyConflict }
        guard let first = try Self.booking(id, on: c) else {
            throw StoreError(.corruptRow, "An idempotency key points to a missing booking.")
        }
        return BookingCreation(booking: first, created: false)
    }

    /// `create` without blocking: the write joins the next group commit and `completion` runs on a writer
    /// thread once it is durable (or failed). The completion must be quick and must not write to this store
    /// synchronously.
    public func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord],
        completion: @escaping @Sendable (Result<BookingCreation, any Error>) -> Void
    ) {
        do {
            try BookingRow.checkNew(booking, idempotencyKey: idempotencyKey, transitions: transitions)
        } catch {
            completion(.failure(error))
            return
        }
        writer.submit(
            { c in try Self.insert(booking, idempotencyKey: idempotencyKey, transitions: transitions, on: c) },
            completion: completion)
    }

    /// A booking by id.
    public func booking(_ id: BookingID) throws -> Booking? {
        try read { c in try Self.booking(id.rawValue, on: c) }
    }

    /// Bookings matching `query`, newest first (keyset pagination on creation time and id, the same cursors as
    /// the SQLite store's).
    public func bookings(_ query: BookingQuery) throws -> Page<Booking> {
        let (conditions, parameters) = try BookingRow.conditions(of: query)
        // Constant fragments only, numbered in order; every value is a parameter.
        var numbered = ""
        var n = 0
        for ch in conditions {
            if ch == "?" {
                n += 1
                numbered += "$\(n)"
            } else {
                numbered.append(ch)
            }
        }
        let sql =
            "SELECT \(BookingRow.columns) FROM bookings\(numbered) ORDER BY created_ms DESC, id DESC LIMIT $\(n + 1)"
        let values = PostgresValue.from(parameters) + [.int(Int64(query.limit + 1))]
        let rows = try read { c in
            try c.query(sql, values: values).rows.map { try BookingRow.decode(PostgresStoreRow(row: $0)) }
        }
        return BookingRow.page(of: rows, limit: query.limit)
    }

    /// Writes `updated` and `record` if the stored status is still `record.from` (compare-and-set in the
    /// database); else `.transitionConflict` naming the current status.
    public func transition(_ updated: Booking, record: TripTransitionRecord) throws {
        precondition(updated.id == record.bookingID && updated.status == record.to, "record and booking disagree")
        guard let from = record.from else {
            preconditionFailure("a transition has a from state; creation is create(_:)")
        }
        try write { c in try Self.compareAndSetOrThrow(updated, record: record, from: from, on: c) }
    }

    /// `compareAndSet`, throwing the conflict (naming the state that won) when the status had moved on. Returns
    /// the drivers whose open offers it withdrew.
    @discardableResult
    static func compareAndSetOrThrow(
        _ updated: Booking, record: TripTransitionRecord, from: TripState, on c: PostgresConnection
    ) throws -> [DriverID] {
        guard let withdrawn = try compareAndSet(updated, record: record, from: from, on: c) else {
            let current = try c.query("SELECT status FROM bookings WHERE id = $1", [updated.id.rawValue]).first
            guard let current, let state = current.string(0).flatMap(TripState.init(rawValue:)) else {
                throw CoreError(.notFound, "No booking \(updated.id).")
            }
            throw BookingRow.transitionConflict(state, record)
        }
        return withdrawn
    }

    /// Several compare-and-set transitions in one transaction (one commit for all): each `updated` and `record`
    /// is written only if that booking's stored status is still `record.from`. Returns, in order, whether each
    /// was written; a `false` is a lost race (read the booking again and judge the command against it).
    public func transitions(_ changes: [(updated: Booking, record: TripTransitionRecord)]) throws -> [Bool] {
        let checked = changes.map { updated, record in
            precondition(updated.id == record.bookingID && updated.status == record.to, "record and booking disagree")
            guard let from = record.from else {
                preconditionFailure("a transition has a from state; creation is create(_:)")
            }
            return (updated, record, from)
        }
        guard !checked.isEmpty else { return [] }
        // In the order of their IDs, so that two such transactions take the bookings in the same order.
        let order = checked.indices.sorted { checked[$0].0.id.rawValue < checked[$1].0.id.rawValue }
        return try write { c in
            var written = [Bool](repeating: false, count: checked.count)
            for i in order {
                let (updated, record, from) = checked[i]
                // Each in a savepoint: a driver already holding an open trip loses this change only.
                try c.execute("SAVEPOINT cab_change")
                do {
                    written[i] = try Self.compareAndSet(updated, record: record, from: from, on: c) != nil
                    try c.execute("RELEASE SAVEPOINT cab_change")
                } catch let error as CoreError where error.code == .transitionConflict {
                    try c.execute("ROLLBACK TO SAVEPOINT cab_change")
                    try c.execute("RELEASE SAVEPOINT cab_change")
                }
            }
            return written
        }
    }

    /// The update if the status is still `from`, and the history row; nil when the status had moved on, else the
    /// drivers whose open offers it withdrew (`closeOffers`). A second open trip for the driver is refused by
    /// `one_open_trip_per_driver` as a conflict.
    static func compareAndSet(
        _ updated: Booking, record: TripTransitionRecord, from: TripState, on c: PostgresConnection
    ) throws -> [DriverID]? {
        let changed: Int
        do {
            changed = try c.query(
                updateBooking, values: PostgresValue.from(BookingRow.updateValues(updated, expected: from))
            )
            .affectedRows
        } catch {
            // `query` throws only `PostgresError`s.
            guard error.constraint == "one_open_trip_per_driver" else { throw error }
            throw CoreError(.transitionConflict, "That driver already holds another open trip; choose another driver.")
        }
        guard changed == 1 else { return nil }
        let step =
            try c.query(
                "SELECT coalesce(max(step), 0) + 1 FROM booking_history WHERE booking_id = $1", [updated.id.rawValue]
            ).first?.int(0) ?? 1
        try insertHistory(record, step: step, on: c)
        return try closeOffers(of: updated, from: from, on: c)
    }

    /// A trip's durable offers follow its status in the transaction that changes it (issue 18): leaving dispatch,
    /// its open offers close (the accepting driver's `accepted`, the others `withdrawn`) and its dispatch deadlines
    /// go; handed back to dispatch, its accepted offer is `released`; ended, the trip's deadlines go. A store whose
    /// dispatch writes no offers (one node) changes no rows here. Returns the drivers whose offers were withdrawn.
    static func closeOffers(of updated: Booking, from: TripState, on c: PostgresConnection) throws -> [DriverID] {
        let id = updated.id.rawValue
        var withdrawn: [DriverID] = []
        if updated.status.isTerminal {
            try c.query("DELETE FROM dispatch_deadlines WHERE booking_id = $1::text", [id])
        }
        if from == .dispatching, updated.status != .dispatching {
            let taker = updated.status == .accepted ? updated.driverID?.rawValue : nil
            withdrawn = try c.query(
                """
                UPDATE dispatch_offers
                SET state = CASE WHEN driver_id = $2::text THEN 'accepted' ELSE 'withdrawn' END,
                    closed_at = clock_timestamp()
                WHERE booking_id = $1::text AND state = 'open'
                RETURNING driver_id, state
                """, [id, taker]
            ).rows.compactMap { row in
                row.string(1) == "withdrawn" ? row.string(0).map(DriverID.init(uncheckedRawValue:)) : nil
            }
            try c.query(
                "DELETE FROM dispatch_deadlines WHERE booking_id = $1::text AND kind IN ('offer_timeout', 'dispatch_timeout')",
                [id])
        } else if updated.status == .dispatching, from != .requested, from != .dispatching {
            // `closed_at` stays the accept's: the offer was closed then (the trip held the driver since).
            try c.query(
                "UPDATE dispatch_offers SET state = 'released' WHERE booking_id = $1::text AND state = 'accepted'", [id]
            )
        }
        return withdrawn
    }

    /// Every transition of a booking, oldest first.
    public func history(_ id: BookingID) throws -> [TripTransitionRecord] {
        try read { c in
            try c.query(
                "SELECT from_status, to_status, event, actor_role, actor_id, at_ms, reason FROM booking_history "
                    + "WHERE booking_id = $1 ORDER BY step",
                [id.rawValue]
            ).rows.map { try BookingRow.decodeHistory(PostgresStoreRow(row: $0), of: id) }
        }
    }

    static func booking(_ id: String, on c: PostgresConnection) throws -> Booking? {
        try c.query("SELECT \(BookingRow.columns) FROM bookings WHERE id = $1", [id]).first.map {
            try BookingRow.decode(PostgresStoreRow(row: $0))
        }
    }

    static func insertHistory(_ record: TripTransitionRecord, step: Int, on c: PostgresConnection) throws {
        try c.query(
            "INSERT INTO booking_history (booking_id, step, from_status, to_status, event, actor_role, actor_id, at_ms, "
                + "reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [
                record.bookingID.rawValue, step, record.from?.rawValue, record.to.rawValue, record.event.rawValue,
                record.actor.role.rawValue, record.actor.id, record.at.millisecondsSinceEpoch, record.reason,
            ] as [any PostgresBindable])
    }
}
