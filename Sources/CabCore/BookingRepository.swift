/// The outcome of `BookingRepository.create`.
public struct BookingCreation: Hashable, Sendable {
    /// The stored booking (the earlier one when the idempotency key was seen before).
    public var booking: Booking
    /// False when an earlier request with the same key had already created it.
    public var created: Bool

    /// Creates an outcome.
    public init(booking: Booking, created: Bool) {
        self.booking = booking
        self.created = created
    }
}

/// An idempotency key with the fingerprint (e.g. a hash) of the request body it came with.
public struct IdempotencyKey: Hashable, Sendable {
    /// The client's key (the `Idempotency-Key` header), 1 to 255 bytes.
    public var key: String
    /// A fingerprint of the request body; the same key with a different fingerprint is a conflict.
    public var requestFingerprint: String

    /// Creates a key.
    public init(key: String, requestFingerprint: String) {
        self.key = key
        self.requestFingerprint = requestFingerprint
    }
}

/// Which bookings to list, newest first, a page at a time.
public struct BookingQuery: Hashable, Sendable {
    /// Only this rider's.
    public var riderID: RiderID?
    /// Only this driver's.
    public var driverID: DriverID?
    /// Only bookings in one of these states (empty: all).
    public var statuses: Set<TripState>
    /// At most this many (1...100).
    public var limit: Int
    /// The `nextCursor` of the previous page; nil for the first page.
    public var cursor: String?

    /// Creates a query.
    public init(
        riderID: RiderID? = nil, driverID: DriverID? = nil, statuses: Set<TripState> = [], limit: Int = 20,
        cursor: String? = nil
    ) {
        self.riderID = riderID
        self.driverID = driverID
        self.statuses = statuses
        self.limit = limit
        self.cursor = cursor
    }
}

/// One page of a list.
public struct Page<Item: Sendable & Hashable>: Hashable, Sendable {
    /// The items, newest first.
    public var items: [Item]
    /// Pass as `cursor` for the next page; nil on the last page.
    public var nextCursor: String?

    /// Creates a page.
    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// Bookings and their status history (implemented by `CabStore`).
///
/// Domain errors are `CoreError`s: `.idempotencyConflict`, `.transitionConflict` (naming the current state
/// in `currentTripState`), `.notFound`, `.invalidValue`; storage failures are the store's own errors.
public protocol BookingRepository: Sendable {
    /// Stores a new booking with its `book` history row, durably, once per idempotency key: a repeat with the
    /// same key and fingerprint returns the first booking, a different fingerprint throws `.idempotencyConflict`.
    /// Keys are per rider. `transitions` are steps taken at once from `requested`, stored in the same transaction
    /// after `book` (empty: the booking is stored in `requested`); `booking` is the state they leave it in.
    func create(_ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord]) throws
        -> BookingCreation
    /// `create` without blocking the caller: `completion` gets the outcome once it is durable, on a thread of
    /// the store's (quick work only; no synchronous writes to the same store from it).
    func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?, transitions: [TripTransitionRecord],
        completion: @escaping @Sendable (Result<BookingCreation, any Error>) -> Void)
    /// A booking by id.
    func booking(_ id: BookingID) throws -> Booking?
    /// Bookings matching `query`, newest first.
    func bookings(_ query: BookingQuery) throws -> Page<Booking>
    /// Replaces the booking with `updated` and appends `record` in one transaction, only if the stored status
    /// is still `record.from` and the stored version is `updated.version - 1` (compare-and-set: the state
    /// machine raises the version); otherwise throws `.transitionConflict` naming the status.
    func transition(_ updated: Booking, record: TripTransitionRecord) throws
    /// Several compare-and-set transitions in one durable write: each `updated` and `record` is stored only if
    /// that booking's status is still `record.from` and its version `updated.version - 1`. Returns, in order, whether each was stored (a `false` is a
    /// lost race: read the booking again and judge the command against it).
    func transitions(_ changes: [(updated: Booking, record: TripTransitionRecord)]) throws -> [Bool]
    /// Every transition of a booking, oldest first (the first is `book`).
    func history(_ id: BookingID) throws -> [TripTransitionRecord]
}

extension BookingRepository {
    /// The batch through `transition` one at a time (a store that can write them in one transaction should).
    public func transitions(_ changes: [(updated: Booking, record: TripTransitionRecord)]) throws -> [Bool] {
        try changes.map { updated, record in
            do {
                try transition(updated, record: record)
                return true
            } catch let error as CoreError where error.code == .transitionConflict {
                return false
            }
        }
    }

    /// Stores a new booking in `requested` (see `create(_:idempotencyKey:transitions:)`).
    public func create(_ booking: Booking, idempotencyKey: IdempotencyKey?) throws -> BookingCreation {
        try create(booking, idempotencyKey: idempotencyKey, transitions: [])
    }

    /// Stores a new booking in `requested` without blocking (see `create(_:idempotencyKey:transitions:completion:)`).
    public func create(
        _ booking: Booking, idempotencyKey: IdempotencyKey?,
        completion: @escaping @Sendable (Result<BookingCreation, any Error>) -> Void
    ) {
        create(booking, idempotencyKey: idempotencyKey, transitions: [], completion: completion)
    }

    /// Reads the booking, applies `command` with the state machine, and stores the result with a
    /// compare-and-set; when another writer got there first it re-reads and tries again (up to `attempts`),
    /// so a cancel racing an accept is judged against the state that won.
    /// - Returns: the booking as stored and the step (whose actions the caller performs).
    public func apply(
        _ command: TripCommand, to id: BookingID, by actor: Principal, at time: Instant, tariff: Tariff,
        table: TripTransitionTable = .standard, attempts: Int = 3
    ) throws -> (booking: Booking, step: TripStep) {
        var lastConflict: (any Error)?
        for _ in 0..<max(1, attempts) {
            guard let current = try booking(id) else {
                throw CoreError(.notFound, "No booking \(id).")
            }
            var machine = TripStateMachine(booking: current, tariff: tariff, table: table)
            let step = try machine.handle(command, by: actor, at: time)
            guard let record = step.record else { return (current, step) }
            do {
                try transition(machine.booking, record: record)
                return (machine.booking, step)
            } catch let error as CoreError where error.code == .transitionConflict {
                lastConflict = error
            }
        }
        throw lastConflict ?? CoreError(.transitionConflict, "The booking kept changing; try again.")
    }
}
