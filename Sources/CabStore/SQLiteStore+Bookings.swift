import CabCore
import CabSQLite

extension SQLiteStore: BookingRepository {
    /// Longest idempotency key accepted, in UTF-8 bytes.
    public static let maximumIdempotencyKeyBytes = 255

    /// Stores a new booking with its `book` history row and idempotency key in one durable transaction;
    /// a repeated key with the same fingerprint returns the first booking (`created == false`).
    ///
    /// `transitions` are steps the booking takes at once, in the same transaction (dispatch's
    /// `requested → dispatching`): each is stored as a history row after `book`, and `booking` is the state they
    /// leave it in, so the row is written once instead of once per step.
    public func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord]
    ) throws -> BookingCreation {
        try BookingRow.checkNew(booking, idempotencyKey: idempotencyKey, transitions: transitions)
        return try writer.write { c in
            try Self.insert(booking, idempotencyKey: idempotencyKey, transitions: transitions, on: c)
        }
    }

    /// `create` without blocking: the write joins the next group commit and `completion` runs on the store's
    /// writer thread once it is durable (or failed). The completion must be quick and must not write to this
    /// store synchronously.
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

    /// The booking, its `book` history row, its transitions' rows and its idempotency key, or the first booking
    /// made with the key.
    private static func insert(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord], on c: Connection
    ) throws -> BookingCreation {
        if let key = idempotencyKey {
            let earlier = try c.first(
                "SELECT fingerprint, booking_id FROM idempotency_keys WHERE rider_id = ? AND key = ?",
                [booking.riderID.rawValue, key.key]
            ) { ($0.string(0), $0.string(1)) }
            if let (fingerprint, bookingID) = earlier {
                guard fingerprint == key.requestFingerprint else { throw BookingRow.idempotencyConflict }
                guard let first = try Self.booking(bookingID, on: c) else {
                    throw StoreError(.corruptRow, "An idempotency key points to a missing booking.")
                }
                return BookingCreation(booking: first, created: false)
            }
        }
        try c.run(BookingRow.insert, BookingRow.values(booking))
        try Self.appendHistory(BookingRow.bookRecord(booking), on: c)
        for record in transitions { try Self.appendHistory(record, on: c) }
        if let key = idempotencyKey {
            try c.run(
                "INSERT INTO idempotency_keys (rider_id, key, fingerprint, booking_id, created_ms) VALUES (?, ?, ?, ?, ?)",
                [
                    booking.riderID.rawValue, key.key, key.requestFingerprint, booking.id.rawValue,
                    booking.createdAt.millisecondsSinceEpoch,
                ])
        }
        return BookingCreation(booking: booking, created: true)
    }

    /// A booking by id.
    public func booking(_ id: BookingID) throws -> Booking? {
        try readers.read { c in try Self.booking(id.rawValue, on: c) }
    }

    /// Bookings matching `query`, newest first (keyset pagination on creation time and id).
    public func bookings(_ query: BookingQuery) throws -> Page<Booking> {
        let (whereClause, parameters) = try BookingRow.conditions(of: query)
        let sql = "SELECT \(BookingRow.columns) FROM bookings\(whereClause) ORDER BY created_ms DESC, id DESC LIMIT ?"
        let rows = try readers.read { c in try c.query(sql, parameters + [query.limit + 1], row: BookingRow.decode) }
        return BookingRow.page(of: rows, limit: query.limit)
    }

    /// Writes `updated` and `record` if the stored status is still `record.from`; else `.transitionConflict`.
    public func transition(_ updated: Booking, record: TripTransitionRecord) throws {
        precondition(updated.id == record.bookingID && updated.status == record.to, "record and booking disagree")
        guard let from = record.from else {
            preconditionFailure("a transition has a from state; creation is create(_:)")
        }
        try writer.write { c in
            let changed = try c.run(BookingRow.update, BookingRow.updateValues(updated, expected: from))
            guard changed == 1 else {
                let current = try c.first("SELECT status FROM bookings WHERE id = ?", [updated.id.rawValue]) {
                    TripState(rawValue: $0.string(0))
                }
                guard let current, let state = current else {
                    throw CoreError(.notFound, "No booking \(updated.id).")
                }
                throw BookingRow.transitionConflict(state, record)
            }
            try Self.appendHistory(record, on: c)
        }
    }

    /// Several compare-and-set transitions in one transaction (one fsync for all): each `updated` and `record`
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
        return try writer.write { c in
            try checked.map { updated, record, from in
                guard try c.run(BookingRow.update, BookingRow.updateValues(updated, expected: from)) == 1 else {
                    return false
                }
                try Self.appendHistory(record, on: c)
                return true
            }
        }
    }

    /// Every transition of a booking, oldest first.
    public func history(_ id: BookingID) throws -> [TripTransitionRecord] {
        try readers.read { c in
            try c.query(
                "SELECT from_status, to_status, event, actor_role, actor_id, at_ms, reason FROM booking_history "
                    + "WHERE booking_id = ? ORDER BY seq",
                [id.rawValue]
            ) { r in try BookingRow.decodeHistory(r, of: id) }
        }
    }

    static func booking(_ id: String, on c: Connection) throws -> Booking? {
        try c.first("SELECT \(BookingRow.columns) FROM bookings WHERE id = ?", [id], row: BookingRow.decode)
    }

    static func appendHistory(_ r: TripTransitionRecord, on c: Connection) throws {
        try c.run(
            "INSERT INTO booking_history (booking_id, from_status, to_status, event, actor_role, actor_id, at_ms, reason) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                r.bookingID.rawValue, r.from?.rawValue, r.to.rawValue, r.event.rawValue, r.actor.role.rawValue,
                r.actor.id, r.at.millisecondsSinceEpoch, r.reason,
            ])
    }
}
