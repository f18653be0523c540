import CabCore

/// Everything the application and the API need from a durable store, in one protocol, so that `cab serve` runs
/// on SQLite (`SQLiteStore`, one machine) or PostgreSQL (`PostgresStore`, shared by several nodes) with the same
/// code above it. The ports the application needs are `CabCore`'s; the rest are the API's reads and writes
/// (ratings, statistics, secrets, device keys) and the store's health.
public protocol ApplicationStore: AccountRepository, BookingRepository, DispatchStateRepository,
    LocationHistoryRepository, TrackingLinkRepository, SavedPlaceRepository, Sendable
{
    /// What the store's files or database say about its ability to take requests (`/healthz`, `/readyz`).
    var health: StoreHealth { get }
    /// Rates a completed trip once (`already_rated`, `not_completed` otherwise); returns the booking as rated.
    func rate(_ booking: BookingID, _ rating: TripRating) throws -> Booking
    /// The rating summary of each driver that has one.
    func ratings(of drivers: [DriverID]) throws -> [DriverID: DriverRatingSummary]
    /// Pickup punctuality over the newest `limit` trips (`GET /v1/stats`).
    func pickupStatistics(limit: Int, now: Instant?) throws -> PickupStatistics
    /// The server secret `name`, made with `make` and stored the first time it is asked for.
    func serverSecret(named name: String, at time: Instant, make: @escaping @Sendable () throws -> [UInt8]) throws
        -> [UInt8]
    /// Stores a device key (OsmAnd) for `driver`.
    func addCredential(_ hash: TokenHash, for driver: DriverID, at time: Instant) throws
    /// The newest open trips, at most `limit` (`GET /v1/trips?open=true`).
    func newestOpenTrips(limit: Int) throws -> [Booking]
    /// Transactions committed and writes made in them so far (group commit's effect; benchmarks and tests).
    var writeStatistics: (batches: Int, writes: Int) { get }
    /// Finishes queued writes and closes; later calls throw `.closed`.
    func close()
}

extension SQLiteStore: ApplicationStore {}

extension PostgresStore: TrackingLinkRepository {
    /// Stores a tracking link (`createShareLink`).
    public func createTrackingLink(_ token: String, for booking: BookingID, at time: Instant) throws {
        try createShareLink(token: token, booking: booking, at: time)
    }

    /// The booking a tracking link shows (`shareLinkBooking`).
    public func trackingLinkBooking(_ token: String) throws -> BookingID? { try shareLinkBooking(token: token) }
}

extension PostgresStore: DispatchStateRepository, ApplicationStore {}
