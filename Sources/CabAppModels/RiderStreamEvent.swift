import CabClient
import CabGeo
import Foundation

/// An event of the rider's live stream (`GET /v1/bookings/{id}/stream`), decoded.
public enum RiderStreamEvent: Hashable, Sendable {
    /// The trip's status, with the driver once there is one.
    case status(String, driver: DriverInfo?)
    /// The assigned driver.
    case driver(DriverInfo)
    /// The driver's position.
    case position(Coordinate, heading: Double?)
    /// Seconds by road from the driver to the pickup.
    case pickupETA(Int)
    /// Seconds to the drop-off during the ride (newer servers).
    case dropoffETA(Int)
    /// An alert the rider should notice (`arriving_5_min`, `arriving_1_min`, `arrived`), with its words.
    case alert(kind: String, message: String)
    /// The driver dropped out and dispatch looks for another (newer servers).
    case redispatch(message: String?)

    /// The event `event` stands for; nil for types this app does not know (a newer server's) or a malformed body.
    public init?(_ event: ServerSentEvent) {
        let data = Data(event.data.utf8)
        let decoder = JSONDecoder()
        switch event.type {
        case "status":
            struct Body: Decodable { var status: String, driver: DriverInfo? }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .status(body.status, driver: body.driver)
        case "driver":
            struct Body: Decodable { var driver: DriverInfo }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .driver(body.driver)
        case "position":
            struct Body: Decodable { var lat: Double, lon: Double, heading: Double? }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .position(Coordinate(latitude: body.lat, longitude: body.lon), heading: body.heading)
        case "eta":
            struct Body: Decodable { var eta_s: Double }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .pickupETA(Int(body.eta_s.rounded()))
        case "dropoff_eta":
            struct Body: Decodable { var eta_s: Double }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .dropoffETA(Int(body.eta_s.rounded()))
        case "alert":
            struct Body: Decodable { var kind: String, message: String? }
            guard let body = try? decoder.decode(Body.self, from: data) else { return nil }
            self = .alert(kind: body.kind, message: body.message ?? "Your driver is almost there.")
        case "redispatch":
            struct Body: Decodable { var message: String? }
            self = .redispatch(message: (try? decoder.decode(Body.self, from: data))?.message)
        default:
            return nil
        }
    }
}
