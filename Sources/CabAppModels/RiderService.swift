import CabClient
import CabGeo
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server calls the rider's app makes; `CabAPIClient` is the real one.
public protocol RiderService: Sendable {
    /// Creates a rider account.
    func createRider(name: String) async throws(ClientError) -> AccountCredentials
    /// Places matching `query` near a point.
    func places(matching query: String, near: Coordinate, limit: Int) async throws(ClientError) -> [Place]
    /// The named place at a point, if any.
    func place(at point: Coordinate) async throws(ClientError) -> Place?
    /// Route and fare.
    func estimate(from pickup: Coordinate, to dropoff: Coordinate) async throws(ClientError) -> FareEstimate
    /// Books; the same key books once.
    func book(
        from pickup: Coordinate, to dropoff: Coordinate, pickupName: String?, dropoffName: String?,
        idempotencyKey: String
    ) async throws(ClientError) -> BookingSummary
    /// Reads a booking.
    func booking(id: String) async throws(ClientError) -> BookingSummary
    /// Cancels a booking.
    func cancelBooking(id: String, reason: String?) async throws(ClientError) -> BookingSummary
    /// Rates the driver; returns the stars kept.
    func rate(booking id: String, stars: Int) async throws(ClientError) -> Int
    /// Available cars near a point (newer servers; 404 before).
    func nearbyCars(around point: Coordinate) async throws(ClientError) -> [NearbyCar]
    /// An authenticated request for a path (the live stream).
    func request(_ path: String, query: [String: String]) -> URLRequest
    /// The same service acting with `token`.
    func authenticated(_ token: String) -> Self
}

extension CabAPIClient: RiderService {
    /// A copy of this client that sends `token`.
    public func authenticated(_ token: String) -> CabAPIClient {
        var copy = self
        copy.token = token
        return copy
    }
}
