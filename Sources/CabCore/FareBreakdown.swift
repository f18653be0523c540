/// A fare as itemised lines and their total, all in one currency.
///
/// JSON shape: `{"lines": [{"kind": "distance", "amount": {...Money}, "detail": "10.000 km × 1.20 EUR"}],
/// "total": {...Money}}`.
public struct FareBreakdown: Hashable, Sendable, Codable {
    /// What a line charges for.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The flag fall.
        case base
        /// Per kilometre driven (or routed, for an estimate).
        case distance
        /// Per minute of the trip.
        case time
        /// The top-up to the minimum fare.
        case minimum
        /// A fixed fee per booking, on top of the minimum.
        case bookingFee = "booking_fee"
    }

    /// One charge.
    public struct Line: Hashable, Sendable, Codable {
        /// What it is for.
        public var kind: Kind
        /// How much.
        public var amount: Money
        /// How it was computed, for people ("10.000 km × 1.20 EUR").
        public var detail: String

        /// Creates a line.
        public init(kind: Kind, amount: Money, detail: String) {
            self.kind = kind
            self.amount = amount
            self.detail = detail
        }
    }

    /// The non-zero charges, in the order base, distance, time, minimum, booking fee.
    public var lines: [Line]
    /// The sum of the lines.
    public var total: Money

    /// Creates a breakdown; `total` must equal the sum of the lines.
    public init(lines: [Line], total: Money) {
        self.lines = lines
        self.total = total
    }

    /// The amount of the line of `kind`, zero when there is none.
    public func amount(_ kind: Kind) -> Money {
        lines.first { $0.kind == kind }?.amount ?? .zero(total.currency)
    }
}
