/// An amount of money in whole minor units (cents) of one currency. Never a floating-point number.
///
/// JSON shape: `{"minor_units": 1200, "currency": "EUR", "amount": "12.00"}`; `amount` is written for people
/// and ignored when decoding.
public struct Money: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The amount in minor units (1200 = 12.00 EUR); negative for refunds.
    public var minorUnits: Int64
    /// The currency.
    public var currency: Currency

    /// Creates an amount.
    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Zero in `currency`.
    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    /// True when the amount is zero.
    public var isZero: Bool { minorUnits == 0 }

    /// The sum; both must be in the same currency (mixing currencies is a programming error and traps).
    public static func + (a: Money, b: Money) -> Money {
        precondition(a.currency == b.currency, "cannot add \(a.currency) to \(b.currency)")
        let (sum, overflow) = a.minorUnits.addingReportingOverflow(b.minorUnits)
        precondition(!overflow, "money overflow")
        return Money(minorUnits: sum, currency: a.currency)
    }

    /// The amount as a decimal string with the currency's digits, e.g. `"12.00"`, `"-0.05"`, `"500"` (JPY).
    public var decimalString: String {
        let digits = currency.minorUnitDigits
        let magnitude = minorUnits.magnitude
        let sign = minorUnits < 0 ? "-" : ""
        guard digits > 0 else { return sign + String(magnitude) }
        let scale = UInt64(currency.minorUnitsPerMajor)
        let fraction = String(magnitude % scale)
        return sign + String(magnitude / scale) + "." + String(repeating: "0", count: digits - fraction.count)
            + fraction
    }

    /// `"12.00 EUR"`.
    public var description: String { "\(decimalString) \(currency.code)" }

    enum CodingKeys: String, CodingKey {
        case minorUnits = "minor_units"
        case currency
        case amount
    }

    /// Decodes `minor_units` and `currency`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minorUnits = try c.decode(Int64.self, forKey: .minorUnits)
        currency = try c.decode(Currency.self, forKey: .currency)
    }

    /// Encodes `minor_units`, `currency` and the human-readable `amount`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(minorUnits, forKey: .minorUnits)
        try c.encode(currency, forKey: .currency)
        try c.encode(decimalString, forKey: .amount)
    }
}
