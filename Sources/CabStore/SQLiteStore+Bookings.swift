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
        try Self.checkNew(booking, idempotencyKey: idempotencyKey, transitions: transitions)
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
            try Self.checkNew(booking, idempotencyKey: idempotencyKey, transitions: transitions)
        } catch {
            completion(.failure(error))
            return
        }
        writer.submit(
            { c in try Self.insert(booking, idempotencyKey: idempotencyKey, transitions: transitions, on: c) },
            completion: completion)
    }

    private static func checkNew(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord]
    ) throws {
        var state = TripState.requested
        for record in transitions {
            precondition(record.bookingID == booking.id && record.from == state, "transitions must chain from requested")
            state = record.to
        }
        precondition(booking.status == state, "a new booking is stored in the state its transitions leave it in")
        if let key = idempotencyKey, key.key.isEmpty || key.key.utf8.count > Self.maximumIdempotencyKeyBytes {
            throw CoreError(.invalidValue, "An Idempotency-Key must be 1 to \(Self.maximumIdempotencyKeyBytes) bytes.")
        }
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
                guard fingerprint == key.requestFingerprint else {
                    throw CoreError(
                        .idempotencyConflict,
                        "This Idempotency-Key was used for a different request; use a new key for a new booking.")
                }
                guard let first = try Self.booking(bookingID, on: c) else {
                    throw StoreError(.corruptRow, "An idempotency key points to a missing booking.")
                }
                return BookingCreation(booking: first, created: false)
            }
        }
        try c.run(BookingRow.insert, BookingRow.values(booking))
        try Self.appendHistory(
            TripTransitionRecord(
                bookingID: booking.id, from: nil, to: .requested, event: .book, actor: .rider(booking.riderID),
                at: booking.createdAt),
            on: c)
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
        guard (1...100).contains(query.limit) else {
            throw CoreError(.invalidValue, "limit must be between 1 and 100.")
        }
        // The SQL is assembled from constant fragments only; every value is a bound parameter.
        var conditions: [String] = []
        var parameters: [any SQLiteBindable] = []
        if let rider = query.riderID {
            conditions.append("rider_id = ?")
            parameters.append(rider.rawValue)
        }
        if let driver = query.driverID {
            conditions.append("driver_id = ?")
            parameters.append(driver.rawValue)
        }
        if !query.statuses.isEmpty {
            let sorted = query.statuses.map(\.rawValue).sorted()
            conditions.append("status IN (\(Array(repeating: "?", count: sorted.count).joined(separator: ", ")))")
            parameters += sorted.map { $0 as any SQLiteBindable }
        }
        if let cursor = query.cursor {
            guard let (createdMs, id) = Self.parseCursor(cursor) else {
                throw CoreError(.invalidValue, "The page cursor is not one this server gave out; start from the first page.")
            }
            conditions.append("(created_ms, id) < (?, ?)")
            parameters += [createdMs, id] as [any SQLiteBindable]
        }
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT \(BookingRow.columns) FROM bookings\(whereClause) ORDER BY created_ms DESC, id DESC LIMIT ?"
        parameters.append(query.limit + 1)
        let rows = try readers.read { c in try c.query(sql, parameters, row: BookingRow.decode) }
        let items = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? items.last.map(Self.cursor(for:)) : nil
        return Page(items: items, nextCursor: next)
    }

    /// Writes `updated` and `record` if the stored status is still `record.from`; else `.transitionConflict`.
    public func transition(_ updated: Booking, record: TripTransitionRecord) throws {
        precondition(updated.id == record.bookingID && updated.status == record.to, "record and booking disagree")
        guard let from = record.from else { preconditionFailure("a transition has a from state; creation is create(_:)") }
        try writer.write { c in
            let changed = try c.run(BookingRow.update, BookingRow.updateValues(updated, expected: from))
            guard changed == 1 else {
                let current = try c.first("SELECT status FROM bookings WHERE id = ?", [updated.id.rawValue]) {
                    TripState(rawValue: $0.string(0))
                }
                guard let current, let state = current else {
                    throw CoreError(.notFound, "No booking \(updated.id).")
                }
                throw CoreError(
                    .transitionConflict,
                    "This trip changed just now (\(state.situation)); look at it again before you \(record.event.verb) it.",
                    underlying: TripRefusal(currentState: state, event: record.event))
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
            guard let from = record.from else { preconditionFailure("a transition has a from state; creation is create(_:)") }
            return (updated, record, from)
        }
        guard !checked.isEmpty else { return [] }
        return try writer.write { c in
            try checked.map { updated, record, from in
                guard try c.run(BookingRow.update, BookingRow.updateValues(updated, expected: from)) == 1 else { return false }
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
            ) { r in
                guard let to = TripState(rawValue: r.string(1)), let event = TripEvent(rawValue: r.string(2)),
                    let role = Role(rawValue: r.string(3)), (role == .system) == r.isNull(4)
                else { throw StoreError(.corruptRow, "A history row of \(id) is unreadable.") }
                return TripTransitionRecord(
                    bookingID: id, from: r.optionalString(0).flatMap(TripState.init(rawValue:)), to: to, event: event,
                    actor: Principal(role: role, id: r.optionalString(4)),
                    at: Instant(millisecondsSinceEpoch: r.int64(5)), reason: r.optionalString(6))
            }
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

    /// An opaque page cursor: `<created ms>.<booking id>`.
    static func cursor(for booking: Booking) -> String {
        "\(booking.createdAt.millisecondsSinceEpoch).\(booking.id.rawValue)"
    }

    static func parseCursor(_ text: String) -> (Int64, String)? {
        guard let dot = text.firstIndex(of: "."), let ms = Int64(text[..<dot]),
            let id = BookingID(text[text.index(after: dot)...])
        else { return nil }
        return (ms, id.rawValue)
    }
}
