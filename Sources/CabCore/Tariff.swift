/// How fares are computed: integer minor units of one currency, never floating point.
///
/// **Fare** (`fare(distanceMeters:durationSeconds:)`), each line rounded on its own, half up, to a whole
/// minor unit; the total is the sum of the rounded lines, so the lines always add up:
///
///     base     = baseFare
///     distance = round(perKilometer × distanceMeters / 1000)
///     time     = round(perMinute × durationSeconds / 60)
///     minimum  = max(0, minimumFare − (base + distance + time))     the top-up to the minimum fare
///     total    = base + distance + time + minimum + bookingFee      the booking fee is on top of the minimum
///
/// The default tariff is the classic `fare = km × 1.2` EUR: `perKilometer` 120, everything else 0,
/// so 10 km costs exactly 12.00 EUR (1 234 m: 148.08 → 1.48 EUR).
///
/// **Cancellation fee** (`cancellationFee(...)`), charged to a rider who cancels only when all hold:
/// a driver had accepted; more than `cancellationGraceSeconds` have passed since the acceptance; and the
/// driver was not late (had arrived, or the promised pickup time had not yet passed). A rider who does not
/// show up (`no_show`) pays it too. A driver's cancellation never costs the rider anything.
///
/// **JSON file** (`cab serve --tariff FILE`): an object, amounts in minor units, unknown keys refused.
/// Only `currency` and `per_km` are required; the others default to 0 (grace: 120 s). `minimum` is accepted
/// for `minimum_fare` (not both); the default tariff has no minimum.
///
///     {"currency": "EUR", "base_fare": 250, "per_km": 120, "per_minute": 30, "minimum_fare": 700,
///      "booking_fee": 50, "cancellation_fee": 500, "cancellation_grace_seconds": 120}
public struct Tariff: Hashable, Sendable, Codable {
    /// The currency of every amount.
    public var currency: Currency
    /// Charged once per trip (flag fall).
    public var baseFare: Int64
    /// Per kilometre, pro rata per metre.
    public var perKilometer: Int64
    /// Per minute, pro rata per second.
    public var perMinute: Int64
    /// The least a trip costs before the booking fee.
    public var minimumFare: Int64
    /// Added to every fare.
    public var bookingFee: Int64
    /// Charged for a late cancellation or a no-show.
    public var cancellationFee: Int64
    /// Free cancellation window after a driver accepts, in seconds.
    public var cancellationGraceSeconds: Int

    /// Creates a tariff; every amount must be zero or more, or it throws `.invalidTariff`.
    public init(
        currency: Currency, baseFare: Int64 = 0, perKilometer: Int64, perMinute: Int64 = 0, minimumFare: Int64 = 0,
        bookingFee: Int64 = 0, cancellationFee: Int64 = 0, cancellationGraceSeconds: Int = 120
    ) throws(CoreError) {
        self.currency = currency
        self.baseFare = baseFare
        self.perKilometer = perKilometer
        self.perMinute = perMinute
        self.minimumFare = minimumFare
        self.bookingFee = bookingFee
        self.cancellationFee = cancellationFee
        self.cancellationGraceSeconds = cancellationGraceSeconds
        let limit: Int64 = 100_000_000  // a million major units: far beyond any real tariff, far from overflow
        for (name, value) in [
            ("base_fare", baseFare), ("per_km", perKilometer), ("per_minute", perMinute),
            ("minimum_fare", minimumFare), ("booking_fee", bookingFee), ("cancellation_fee", cancellationFee),
            ("cancellation_grace_seconds", Int64(cancellationGraceSeconds)),
        ] where value < 0 || value > limit {
            throw CoreError(.invalidTariff, "\(name) is \(value); it must be between 0 and \(limit)")
        }
    }

    /// The classic SwiftCab fare: 1.20 EUR per kilometre, nothing else.
    public static let standard: Tariff = {
        // try! cannot fail: every amount is a non-negative literal within the limit.
        try! Tariff(currency: .eur, perKilometer: 120)
    }()

    /// Longest trip the tariff prices: 100 000 km or 1 000 hours, so no product can overflow.
    public static let maximumDistanceMeters = 100_000_000
    /// Longest duration the tariff prices.
    public static let maximumDurationSeconds = 3_600_000

    /// The fare for a trip of `distanceMeters` and `durationSeconds` (see the type's documentation for rounding).
    /// Both must be within 0 and the maximums: routes are never negative, so anything else is a programming error.
    public func fare(distanceMeters: Int, durationSeconds: Int) -> FareBreakdown {
        precondition((0...Self.maximumDistanceMeters).contains(distanceMeters), "distance out of range")
        precondition((0...Self.maximumDurationSeconds).contains(durationSeconds), "duration out of range")
        var lines: [FareBreakdown.Line] = []
        func add(_ kind: FareBreakdown.Kind, _ minor: Int64, _ detail: String) {
            if minor != 0 { lines.append(.init(kind: kind, amount: money(minor), detail: detail)) }
        }
        let distance = Self.roundHalfUp(perKilometer * Int64(distanceMeters), dividedBy: 1000)
        let time = Self.roundHalfUp(perMinute * Int64(durationSeconds), dividedBy: 60)
        let subtotal = baseFare + distance + time
        let topUp = max(0, minimumFare - subtotal)
        add(.base, baseFare, "base fare")
        add(.distance, distance, "\(Self.kilometres(distanceMeters)) km × \(money(perKilometer))")
        add(.time, time, "\(Self.minutes(durationSeconds)) min × \(money(perMinute))")
        add(.minimum, topUp, "top-up to the minimum fare of \(money(minimumFare))")
        add(.bookingFee, bookingFee, "booking fee")
        return FareBreakdown(lines: lines, total: money(subtotal + topUp + bookingFee))
    }

    /// What a rider pays for cancelling at `cancelledAt` (see the type's documentation for the rules).
    /// - Parameters:
    ///   - driverAcceptedAt: when a driver accepted; nil if none had.
    ///   - driverArrived: whether the driver had reached the pickup.
    ///   - promisedPickupAt: the pickup time promised to the rider, if any.
    public func cancellationFee(
        driverAcceptedAt: Instant?, driverArrived: Bool, promisedPickupAt: Instant?, cancelledAt: Instant
    ) -> Money {
        guard let accepted = driverAcceptedAt else { return .zero(currency) }
        guard cancelledAt.milliseconds(since: accepted) > Int64(cancellationGraceSeconds) * 1000 else {
            return .zero(currency)
        }
        if !driverArrived, let promised = promisedPickupAt, cancelledAt > promised { return .zero(currency) }
        return money(cancellationFee)
    }

    /// The no-show fee: the cancellation fee, whatever the timing.
    public var noShowFee: Money { money(cancellationFee) }

    func money(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: currency) }

    /// `numerator / denominator` rounded to the nearest integer, halves up; both non-negative.
    static func roundHalfUp(_ numerator: Int64, dividedBy denominator: Int64) -> Int64 {
        (numerator + denominator / 2) / denominator
    }

    static func kilometres(_ meters: Int) -> String {
        let frac = String(meters % 1000)
        return "\(meters / 1000).\(String(repeating: "0", count: 3 - frac.count))\(frac)"
    }

    static func minutes(_ seconds: Int) -> String {
        let frac = String(seconds % 60)
        return "\(seconds / 60):\(frac.count < 2 ? "0" : "")\(frac)"
    }
}
