import CabCore
import CabDispatch
import Synchronization

/// Every port the trip service needs (`DispatchStore`), in memory: enough to run the application without
/// SQLite or HTTP. Compare-and-set and idempotency keys behave as the store's contract says
/// (`RepositoryConformanceTests` holds the real stores to it).
final class InMemoryStore: DispatchStore {
    private struct State {
        var drivers: [DriverID: Driver] = [:]
        var bookings: [BookingID: Booking] = [:]
        var history: [BookingID: [TripTransitionRecord]] = [:]
        var keys: [String: (fingerprint: String, booking: BookingID)] = [:]
        var declines: [BookingID: Set<DriverID>] = [:]
        var links: [String: BookingID] = [:]
        var trail: [DriverLocationRecord] = []
    }

    private let state = Mutex(State())

    // MARK: Accounts (drivers only: the trip service reads them)

    func createRider(_ rider: Rider, tokenHash: TokenHash) throws {}
    func createDriver(_ driver: Driver, tokenHash: TokenHash) throws {
        state.withLock { $0.drivers[driver.id] = driver }
    }
    func createDispatcher(_ dispatcher: Dispatcher, tokenHash: TokenHash) throws {}
    func principal(forTokenHash hash: TokenHash) throws -> Principal? { nil }
    func revokeToken(_ hash: TokenHash, at time: Instant) throws -> Bool { false }
    func rider(_ id: RiderID) throws -> Rider? { nil }
    func driver(_ id: DriverID) throws -> Driver? { state.withLock { $0.drivers[id] } }
    func dispatcher(_ id: DispatcherID) throws -> Dispatcher? { nil }

    // MARK: Bookings

    func create(_ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord]) throws
        -> BookingCreation
    {
        try state.withLock { s in
            let key = idempotencyKey.map { "\(booking.riderID.rawValue) \($0.key)" }
            if let key, let seen = s.keys[key] {
                guard seen.fingerprint == idempotencyKey?.requestFingerprint, let first = s.bookings[seen.booking]
                else {
                    throw CoreError(.idempotencyConflict, "This Idempotency-Key came with another booking.")
                }
                return BookingCreation(booking: first, created: false)
            }
            s.bookings[booking.id] = booking
            s.history[booking.id] =
                [
                    TripTransitionRecord(
                        bookingID: booking.id, from: nil, to: .requested, event: .book, actor: .rider(booking.riderID),
                        at: booking.createdAt)
                ] + transitions
            if let key, let idempotencyKey { s.keys[key] = (idempotencyKey.requestFingerprint, booking.id) }
            return BookingCreation(booking: booking, created: true)
        }
    }

    func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord],
        completion: @escaping @Sendable (Result<BookingCreation, any Error>) -> Void
    ) {
        completion(Result { try create(booking, idempotencyKey: idempotencyKey, transitions: transitions) })
    }

    func booking(_ id: BookingID) throws -> Booking? { state.withLock { $0.bookings[id] } }

    func bookings(_ query: BookingQuery) throws -> Page<Booking> {
        let all = state.withLock { Array($0.bookings.values) }
        let matching = all.filter { b in
            (query.riderID.map { $0 == b.riderID } ?? true) && (query.driverID.map { $0 == b.driverID } ?? true)
                && (query.statuses.isEmpty || query.statuses.contains(b.status))
        }.sorted { $0.createdAt > $1.createdAt }
        return Page(items: Array(matching.prefix(query.limit)), nextCursor: nil)
    }

    func transition(_ updated: Booking, record: TripTransitionRecord) throws {
        try state.withLock { s in
            guard let stored = s.bookings[updated.id] else { throw CoreError(.notFound, "No booking \(updated.id).") }
            guard stored.status == record.from else {
                throw CoreError.illegalTransition(record.event, in: stored.status)
                    .with(code: .transitionConflict)
            }
            s.bookings[updated.id] = updated
            s.history[updated.id, default: []].append(record)
        }
    }

    func history(_ id: BookingID) throws -> [TripTransitionRecord] { state.withLock { $0.history[id] ?? [] } }

    // MARK: Dispatch state

    func recordDecline(of booking: BookingID, by driver: DriverID, at time: Instant) throws {
        state.withLock { _ = $0.declines[booking, default: []].insert(driver) }
    }

    func declines(of booking: BookingID) throws -> Set<DriverID> { state.withLock { $0.declines[booking] ?? [] } }

    func openTrips() throws -> [Booking] {
        state.withLock { $0.bookings.values.filter { !$0.status.isTerminal }.sorted { $0.createdAt < $1.createdAt } }
    }

    // MARK: Location history

    func append(_ records: [DriverLocationRecord]) throws -> Int {
        state.withLock { $0.trail += records }
        return records.count
    }

    func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord] {
        state.withLock { s in
            Array(
                s.trail.filter { $0.driverID == driver && $0.time >= from && $0.time < to }.sorted { $0.time < $1.time }
                    .prefix(limit))
        }
    }

    // MARK: Tracking links

    func createTrackingLink(_ token: String, for booking: BookingID, at time: Instant) throws {
        state.withLock { $0.links[token] = booking }
    }

    func trackingLinkBooking(_ token: String) throws -> BookingID? { state.withLock { $0.links[token] } }
}

extension CoreError {
    /// The same error with another code (a lost compare-and-set names the state that won).
    func with(code: Code) -> CoreError { CoreError(code, message, underlying: underlying) }
}
