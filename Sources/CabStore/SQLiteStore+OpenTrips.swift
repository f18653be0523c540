import CabCore
import CabSQLite

extension SQLiteStore {
    /// The states a trip can be left in when the server stops: not yet terminal.
    public static let openTripStates: [TripState] = TripState.allCases.filter { !$0.isTerminal }

    /// Every booking not in a terminal state, oldest first (start-up recovery reads them all, unpaged).
    /// - Complexity: one scan of the open bookings.
    public func openTrips() throws -> [Booking] {
        // Constant SQL: the placeholders are counted from a constant list; the states are bound parameters.
        let states = Self.openTripStates.map(\.rawValue)
        let placeholders = Array(repeating: "?", count: states.count).joined(separator: ", ")
        return try readers.read { c in
            try c.query(
                "SELECT \(BookingRow.columns) FROM bookings WHERE status IN (\(placeholders)) ORDER BY created_ms, id",
                states, row: BookingRow.decode)
        }
    }

    /// The newest `limit` bookings not in a terminal state, newest first (the dispatcher's board).
    /// - Complexity: an index scan of the open states, `limit` rows read.
    public func newestOpenTrips(limit: Int) throws -> [Booking] {
        let states = Self.openTripStates.map(\.rawValue)
        let placeholders = Array(repeating: "?", count: states.count).joined(separator: ", ")
        return try readers.read { c in
            try c.query(
                "SELECT \(BookingRow.columns) FROM bookings WHERE status IN (\(placeholders)) "
                    + "ORDER BY created_ms DESC, id DESC LIMIT ?",
                states.map { $0 as any SQLiteBindable } + [max(0, limit)], row: BookingRow.decode)
        }
    }
}
