import CabClient
import Foundation

/// What the driver's screen says at each step, so the view only lays it out (issue 20: nothing a person notices
/// is decided in a view).
extension DriverShift {
    /// The signed-in driver: "Aino · Toyota Prius · ABC-123", the parts the account has.
    public var accountLine: String? {
        account.map { [$0.name, $0.vehicle, $0.plate].compactMap(nonEmpty).joined(separator: " · ") }
    }

    /// The offer on screen: "New trip: Central Station → Kamppi".
    public var offerTitle: String? {
        offer.map { "New trip: \($0.pickupName ?? "pickup nearby") → \($0.dropoffName ?? "destination")" }
    }

    /// How far the offer's pickup is: "3 min to the pickup".
    public var offerETALine: String? {
        offer?.etaSeconds.map { "\(TripWords.duration(seconds: Double($0))) to the pickup" }
    }

    /// The countdown: "7 s to answer".
    public var countdownLine: String? { offerSecondsLeft.map { "\($0) s to answer" } }

    /// Where to drive now: to the pickup, then to the drop-off; nil at other steps.
    public var driveToLine: String? {
        switch phase {
        case .toPickup, .arriving: "Drive to \(trip?.pickupName ?? "the pickup")"
        case .riding, .completing: "Drive to \(trip?.dropoffName ?? "the drop-off")"
        default: nil
        }
    }

    /// True while a request the driver made is on its way: the buttons wait (a second tap would be ignored).
    public var isBusy: Bool {
        [.signingIn, .goingOnline, .goingOffline, .accepting, .arriving, .starting, .completing].contains(phase)
    }

    /// The fare of the trip just completed: "Fare 5.40 EUR".
    public var fareLine: String? { fare.map { "Fare \(TripWords.money($0))" } }
}

/// The text, or nil when it is empty or only spaces.
func nonEmpty(_ text: String?) -> String? {
    guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
    return text
}
