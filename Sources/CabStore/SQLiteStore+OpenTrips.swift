import CabCore

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
}
