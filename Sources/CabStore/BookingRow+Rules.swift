import CabCore
import CabSQLite

/// What both stores decide the same way about bookings: what a new booking must be, the words of a conflict,
/// the list filters and the page cursors.
extension BookingRow {
    /// Longest idempotency key accepted, in UTF-8 bytes.
    static var maximumIdempotencyKeyBytes: Int { SQLiteStore.maximumIdempotencyKeyBytes }

    /// Checks a new booking: its transitions chain from `requested` to its status, and its key is 1-255 bytes.
    static func checkNew(_ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord])
        throws
    {
        var state = TripState.requested
        for record in transitions {
            precondition(
                record.bookingID == booking.id && record.from == state, "transitions must chain from requested")
            state = record.to
        }
        precondition(booking.status == state, "a new booking is stored in the state its transitions leave it in")
        if let key = idempotencyKey, key.key.isEmpty || key.key.utf8.count > maximumIdempotencyKeyBytes {
            throw CoreError(.invalidValue, "An Idempotency-Key must be 1 to \(maximumIdempotencyKeyBytes) bytes.")
        }
    }

    /// The `book` history row every booking starts with.
    static func bookRecord(_ booking: Booking) -> TripTransitionRecord {
        TripTransitionRecord(
            bookingID: booking.id, from: nil, to: .requested, event: .book, actor: .rider(booking.riderID),
            at: booking.createdAt)
    }

    /// The same key sent with another request.
    static var idempotencyConflict: CoreError {
        CoreError(
            .idempotencyConflict,
            "This Idempotency-Key was used for a different request; use a new key for a new booking.")
    }

    /// A compare-and-set that lost: the booking is now in `state`.
    static func transitionConflict(_ state: TripState, _ record: TripTransitionRecord) -> CoreError {
        CoreError(
            .transitionConflict,
            "This trip changed just now (\(state.situation)); look at it again before you \(record.event.verb) it.",
            underlying: TripRefusal(currentState: state, event: record.event))
    }

    /// The `WHERE` clause of a list query (constant fragments with `?` for each value, or empty) and its values.
    static func conditions(of query: BookingQuery) throws -> (String, [any SQLiteBindable]) {
        guard (1...100).contains(query.limit) else {
            throw CoreError(.invalidValue, "limit must be between 1 and 100.")
        }
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
            guard let (createdMilliseconds, id) = parseCursor(cursor) else {
                throw CoreError(
                    .invalidValue, "The page cursor is not one this server gave out; start from the first page.")
            }
            conditions.append("(created_ms, id) < (?, ?)")
            parameters += [createdMilliseconds, id] as [any SQLiteBindable]
        }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), parameters)
    }

    /// A page of `limit` from `rows`, read with one row more than the page to know whether another follows.
    static func page(of rows: [Booking], limit: Int) -> Page<Booking> {
        let items = Array(rows.prefix(limit))
        return Page(items: items, nextCursor: rows.count > limit ? items.last.map(cursor(for:)) : nil)
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

    /// Reads a history row selected as `from_status, to_status, event, actor_role, actor_id, at_ms, reason`.
    static func decodeHistory(_ r: some StoreRow, of id: BookingID) throws -> TripTransitionRecord {
        guard let to = TripState(rawValue: r.string(1)), let event = TripEvent(rawValue: r.string(2)),
            let role = Role(rawValue: r.string(3)), (role == .system) == r.isNull(4)
        else { throw StoreError(.corruptRow, "A history row of \(id) is unreadable.") }
        return TripTransitionRecord(
            bookingID: id, from: r.optionalString(0).flatMap(TripState.init(rawValue:)), to: to, event: event,
            actor: Principal(role: role, id: r.optionalString(4)), at: Instant(millisecondsSinceEpoch: r.int64(5)),
            reason: r.optionalString(6))
    }
}
