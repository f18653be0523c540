import CabClient
import Foundation

/// What the rider's screen says at each step, so the view only lays it out (issue 20: nothing a person notices
/// is decided in a view).
extension RiderFlow {
    /// The route and fare as the rider reads them.
    public struct Quote: Hashable, Sendable {
        /// "2.4 km".
        public var distance: String
        /// "7 min".
        public var duration: String
        /// "4.80 EUR".
        public var fare: String

        /// A quote in words.
        public init(distance: String, duration: String, fare: String) {
            self.distance = distance
            self.duration = duration
            self.fare = fare
        }
    }

    /// A line of the receipt: "Distance 2.4 km … 2.88 EUR", or the total.
    public struct ReceiptLine: Hashable, Sendable {
        /// What the amount is for.
        public var label: String
        /// The amount in words.
        public var amount: String

        /// A receipt line in words.
        public init(label: String, amount: String) {
            self.label = label
            self.amount = amount
        }
    }

    /// Where the trip starts: "From Central Station" (the name is looked up after a tap or a fix).
    public var pickupLine: String { "From \(pickup?.name ?? "the pickup (finding its address…)")" }

    /// The route and fare once estimated.
    public var quote: Quote? {
        estimate.map {
            Quote(
                distance: TripWords.distance(meters: $0.distanceMeters),
                duration: TripWords.duration(seconds: $0.durationSeconds), fare: TripWords.money($0.fare.total))
        }
    }

    /// Whether Try Again is shown next to the error.
    public var canRetry: Bool { error != nil && retryAction != nil }

    /// The assigned driver: "Mikko · Toyota Prius · ABC-123", the parts the server sent.
    public var driverLine: String? {
        driver.map { [$0.name, $0.vehicle, $0.plate].compactMap(nonEmpty).joined(separator: " · ") }
    }

    /// "Arrives in 3 min", while the driver comes.
    public var pickupETALine: String? {
        pickupETASeconds.map { "Arrives in \(TripWords.duration(seconds: Double($0)))" }
    }

    /// "At your destination in 6 min", during the ride.
    public var dropoffETALine: String? {
        dropoffETASeconds.map { "At your destination in \(TripWords.duration(seconds: Double($0)))" }
    }

    /// Whether the PIN and QR code are shown: from booking until the rider is on board (the driver starts the
    /// trip with one of them).
    public var showsPickupCode: Bool {
        booking != nil && [.lookingForDriver, .driverOnTheWay, .driverArrived].contains(phase)
    }

    /// The receipt's lines, then the total ("Total"), or only the final fare ("Fare") when the server sent no
    /// receipt; empty before the trip is finished.
    public var receiptLines: [ReceiptLine] {
        guard phase == .finished, let booking else { return [] }
        if let receipt = booking.receipt {
            return receipt.lines.map { ReceiptLine(label: $0.label, amount: TripWords.money($0.amount)) }
                + [ReceiptLine(label: "Total", amount: TripWords.money(receipt.total))]
        }
        return (booking.finalFare?.total).map { [ReceiptLine(label: "Fare", amount: TripWords.money($0))] } ?? []
    }

    /// Whether star `n` (1 to 5) is drawn filled: the stars the server kept.
    public func isStarFilled(_ n: Int) -> Bool { n <= (stars ?? 0) }
}
