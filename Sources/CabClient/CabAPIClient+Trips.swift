import CabGeo
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The driver's side of a trip (issue 7): going online, answering offers, and moving the trip along.
extension CabAPIClient {
    /// Puts the authenticated driver online (offers may come) or offline (`POST /v1/driver/status`).
    public func setDriverOnline(_ online: Bool) async throws(ClientError) {
        struct Answer: Decodable { var status: String }
        let _: Answer = try await send("POST", "/v1/driver/status", body: ["status": online ? "online" : "offline"])
    }

    /// Accepts the offer of `trip` (`POST /v1/trips/{id}/accept`); a 409 means another driver or a cancel won.
    public func acceptTrip(_ trip: String) async throws(ClientError) -> BookingSummary {
        try await tripCommand(trip, "accept")
    }

    /// Declines the offer of `trip` (`POST /v1/trips/{id}/decline`).
    public func declineTrip(_ trip: String) async throws(ClientError) -> BookingSummary {
        try await tripCommand(trip, "decline")
    }

    /// Tells the rider the driver is at the pickup (`POST /v1/trips/{id}/arrived`).
    public func arrived(_ trip: String) async throws(ClientError) -> BookingSummary {
        try await tripCommand(trip, "arrived")
    }

    /// Starts the ride with the rider's PIN or QR payload (`POST /v1/trips/{id}/start`).
    public func startTrip(_ trip: String, code: String) async throws(ClientError) -> BookingSummary {
        try await tripCommand(trip, "start", body: ["code": code])
    }

    /// Completes the ride at the drop-off (`POST /v1/trips/{id}/complete`); the answer carries the final fare.
    public func completeTrip(_ trip: String) async throws(ClientError) -> BookingSummary {
        try await tripCommand(trip, "complete")
    }

    /// Completes the ride after sending every fix `reporter` still holds, oldest first: the final fare is the
    /// server's trail, so the road driven since the last upload must be on it first (issue 13, defect 1). Throws
    /// without completing when the fixes cannot be sent.
    public func completeTrip(_ trip: String, flushing reporter: LocationReporter) async throws(ClientError)
        -> BookingSummary
    {
        try await reporter.flush()
        return try await completeTrip(trip)
    }

    /// Reads the trip as its driver sees it (`GET /v1/bookings/{id}`).
    public func trip(_ trip: String) async throws(ClientError) -> BookingSummary {
        try await booking(id: trip)
    }

    private func tripCommand(_ trip: String, _ command: String, body: [String: String] = [:])
        async throws(ClientError) -> BookingSummary
    {
        let id = try pathComponent(trip)
        return try await send("POST", "/v1/trips/\(id)/\(command)", body: body)
    }
}
