import CabClient
import Foundation

/// An event of the driver's live stream (`GET /v1/driver/stream`), decoded.
public enum DriverStreamEvent: Hashable, Sendable {
    /// A trip is offered until its `expiresAt`.
    case offer(TripOffer)
    /// An offer was withdrawn (`reason`: `taken`, `expired`, `cancelled`) or the trip ended (`status`).
    case cancelled(tripID: String, by: String?, status: String?, reason: String?)
    /// The trip is this driver's (accepted here, or assigned by a dispatcher).
    case assigned(tripID: String, status: String)

    /// The event `event` stands for; nil for unknown types or a malformed body.
    public init?(_ event: ServerSentEvent) {
        let data = Data(event.data.utf8)
        let decoder = JSONDecoder()
        switch event.type {
        case "offer":
            guard let offer = try? decoder.decode(TripOffer.self, from: data) else { return nil }
            self = .offer(offer)
        case "cancelled":
            struct Body: Decodable { var trip_id: String, by: String?, status: String?, reason: String? }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .cancelled(tripID: body.trip_id, by: body.by, status: body.status, reason: body.reason)
        case "assigned":
            struct Body: Decodable { var trip_id: String, status: String }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .assigned(tripID: body.trip_id, status: body.status)
        default:
            return nil
        }
    }
}
