extension Tariff {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case currency
        case baseFare = "base_fare"
        case perKilometer = "per_km"
        case perMinute = "per_minute"
        case minimumFare = "minimum_fare"
        case bookingFee = "booking_fee"
        case cancellationFee = "cancellation_fee"
        case cancellationGraceSeconds = "cancellation_grace_seconds"
    }

    /// The short spelling of `minimum_fare` in tariff files.
    static let minimumAlias = "minimum"

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes the tariff file shape documented on `Tariff`; unknown keys, unknown currencies and negative
    /// amounts are refused with a message naming the field.
    public init(from decoder: any Decoder) throws {
        let any = try decoder.container(keyedBy: AnyKey.self)
        let allowed = Set(CodingKeys.allCases.map(\.stringValue) + [Self.minimumAlias])
        if let unknown = any.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(
                forKey: unknown, in: any,
                debugDescription:
                    "unknown tariff field '\(unknown.stringValue)'; known: \(allowed.sorted().joined(separator: ", "))"
            )
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // `minimum` is the short spelling of `minimum_fare` (issue 13); giving both is ambiguous.
        let alias = AnyKey(stringValue: Self.minimumAlias)
        if any.contains(alias), c.contains(.minimumFare) {
            throw DecodingError.dataCorruptedError(
                forKey: alias, in: any, debugDescription: "give either 'minimum' or 'minimum_fare', not both")
        }
        let minimum =
            try any.decodeIfPresent(Int64.self, forKey: alias) ?? c.decodeIfPresent(Int64.self, forKey: .minimumFare)
        do {
            try self.init(
                currency: c.decode(Currency.self, forKey: .currency),
                baseFare: c.decodeIfPresent(Int64.self, forKey: .baseFare) ?? 0,
                perKilometer: c.decode(Int64.self, forKey: .perKilometer),
                perMinute: c.decodeIfPresent(Int64.self, forKey: .perMinute) ?? 0,
                minimumFare: minimum ?? 0,
                bookingFee: c.decodeIfPresent(Int64.self, forKey: .bookingFee) ?? 0,
                cancellationFee: c.decodeIfPresent(Int64.self, forKey: .cancellationFee) ?? 0,
                cancellationGraceSeconds: c.decodeIfPresent(Int.self, forKey: .cancellationGraceSeconds) ?? 120)
        } catch let error as CoreError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// Encodes every field in the documented shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(currency, forKey: .currency)
        try c.encode(baseFare, forKey: .baseFare)
        try c.encode(perKilometer, forKey: .perKilometer)
        try c.encode(perMinute, forKey: .perMinute)
        try c.encode(minimumFare, forKey: .minimumFare)
        try c.encode(bookingFee, forKey: .bookingFee)
        try c.encode(cancellationFee, forKey: .cancellationFee)
        try c.encode(cancellationGraceSeconds, forKey: .cancellationGraceSeconds)
    }
}
