import CabClient
import Foundation

/// The words a person reads for trip states and errors: state names and server internals stay internal
/// (issue 13: "every message shown to a person is written for that person").
public enum TripWords {
    /// The trip states after which nothing more happens.
    public static let terminalStatuses: Set<String> = [
        "completed", "cancelled_by_rider", "cancelled_by_driver", "no_driver_found", "expired",
    ]

    /// The rider's line for a trip status.
    public static func riderStatus(_ status: String) -> String {
        switch status {
        case "requested", "dispatching": "Looking for a driver"
        case "accepted": "Your driver is on the way"
        case "arriving": "Your driver is arriving"
        case "arrived": "Your driver has arrived"
        case "in_progress": "On the way to your destination"
        case "completed": "You have arrived"
        case "cancelled_by_rider": "You cancelled this trip"
        case "cancelled_by_driver": "Your driver cancelled this trip"
        case "no_driver_found": "No driver was free"
        case "expired": "This booking expired"
        default: "Updating your trip"
        }
    }

    /// What to tell a person about `error`, met while `doing` something ("book the ride").
    public static func message(for error: ClientError, doing: String) -> String {
        if error.code == .network {
            return "SwiftCab could not reach the server to \(doing). Check your connection and try again."
        }
        guard let problem = error.problem else {
            return "Something went wrong when trying to \(doing). Try again."
        }
        switch (problem.status, problem.code ?? "") {
        case (_, "no_road_nearby"), (_, "unroutable"):
            return outsideTheMap
        case (422, _) where problem.title == "No road nearby" || problem.title == "No route":
            return outsideTheMap
        case (401, _):
            return "This server does not know your account any more. Sign in again."
        case (429, _), (503, _):
            return "The server is busy. Wait a moment, then try again."
        case (500..., _):
            return "The server had a problem when trying to \(doing). Try again in a moment."
        default:
            return problem.detail ?? "The server refused to \(doing)."
        }
    }

    /// A distance as a rider reads it: "850 m", "1.2 km".
    public static func distance(meters: Double) -> String {
        meters < 1000 ? "\(Int((meters / 10).rounded()) * 10) m" : String(format: "%.1f km", meters / 1000)
    }

    /// A duration as a rider reads it: "1 min" at least, "1 h 5 min" past the hour.
    public static func duration(seconds: Double) -> String {
        let minutes = max(1, Int((seconds / 60).rounded()))
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// Money as a person reads it: the server's own words ("5.00 EUR") when it sent them.
    public static func money(_ amount: MoneyAmount) -> String {
        amount.display
            ?? "\(amount.amountMinor / 100).\(String(format: "%02d", abs(amount.amountMinor % 100))) \(amount.currency)"
    }

    /// The driver's queue of unsent positions in words ("1 position waiting to be sent"); nil when it is empty.
    public static func queuedPositions(_ count: Int) -> String? {
        count <= 0 ? nil : "\(count) position\(count == 1 ? "" : "s") waiting to be sent"
    }

    /// A point off the map's roads (outside the area the server imported).
    public static let outsideTheMap =
        "SwiftCab has no roads near that point: it is outside the area it serves. Choose a point on a street inside the map."
}
