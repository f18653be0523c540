import CabCore

/// Money as the API sends it: `{"amount_minor": 1440, "currency": "EUR", "display": "14.40 EUR"}` (docs/api.md).
struct MoneyResponse: Encodable, Sendable, Equatable {
    var amountMinor: Int64
    var currency: String
    var display: String

    init(_ money: Money) {
        amountMinor = money.minorUnits
        currency = money.currency.code
        display = money.description
    }

    enum CodingKeys: String, CodingKey {
        case amountMinor = "amount_minor"
        case currency, display
    }
}

/// A fare as the API sends it: `{"total": MONEY, "lines": [{"label", "amount": MONEY, "detail"}]}`.
struct FareResponse: Encodable, Sendable, Equatable {
    struct Line: Encodable, Sendable, Equatable {
        var label: String
        var amount: MoneyResponse
        var detail: String
    }

    var total: MoneyResponse
    var lines: [Line]

    init(_ breakdown: FareBreakdown) {
        total = MoneyResponse(breakdown.total)
        lines = breakdown.lines.map {
            Line(label: $0.kind.rawValue, amount: MoneyResponse($0.amount), detail: $0.detail)
        }
    }

    /// A stored total whose itemisation is not kept: one line carrying the whole amount.
    init(total money: Money, label: String) {
        total = MoneyResponse(money)
        lines = [Line(label: label, amount: MoneyResponse(money), detail: label)]
    }
}
