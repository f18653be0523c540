/// Human messages for a tariff file that does not decode: what is wrong, in which field, and how to write it.
/// `JSONDecoder` says "not valid JSON" for `per_km: 1.2` (a fraction where a whole number is expected) and prints
/// its own `DecodingError` text for the rest; the operator needs the field and the format instead.
extension Tariff {
    /// The fields that hold amounts in the currency's minor units.
    static let amountFields: Set<String> = [
        "base_fare", "per_km", "per_minute", "minimum_fare", "booking_fee", "cancellation_fee",
    ]

    /// What is wrong with a tariff file, for a person. `document` is the file's top-level JSON object as
    /// `JSONSerialization` reads it (numbers as `Double` or `Int`), nil when the file is not a JSON object.
    public static func explain(_ error: any Error, document: [String: Any]?) -> String {
        if let document, let found = firstBadAmount(in: document) { return found }
        switch error {
        case DecodingError.keyNotFound(let key, _):
            return "'\(key.stringValue)' is missing; add it, e.g. \(example(for: key.stringValue))."
        case DecodingError.valueNotFound(_, let context):
            let name = path(context)
            return "'\(name)' is null; give \(expectation(for: name)), e.g. \(example(for: name)), or leave it out."
        case DecodingError.typeMismatch(_, let context):
            let name = path(context)
            return "'\(name)' has the wrong type; it must be \(expectation(for: name)), e.g. \(example(for: name))."
        case DecodingError.dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return document == nil
                    ? "it is not a JSON object (\(context.debugDescription)); see docs for the tariff file's shape."
                    : context.debugDescription
            }
            return "'\(path(context))': \(context.debugDescription)"
        case let error as CoreError:
            return error.message
        default:
            return "\(error)"
        }
    }

    /// A warning for a tariff that decodes but is probably not what was meant; nil when none.
    public func warning() -> String? {
        guard perKilometer == 0 else { return nil }
        return "per_km is 0: rides are priced without distance (base fare, per minute and fees only). "
            + "If you meant a price per km, write it in minor units: 120 is 1.20 \(currency.code) per km."
    }

    private static func firstBadAmount(in document: [String: Any]) -> String? {
        let currency = (document["currency"] as? String) ?? "EUR"
        for name in document.keys.sorted() where amountFields.contains(name) || name == "cancellation_grace_seconds" {
            let value = document[name]
            let unit = name == "cancellation_grace_seconds" ? "whole seconds" : "whole minor units (cents)"
            if let number = value as? Double, !number.isFinite || abs(number) >= 1e15 {
                return "'\(name)' is \(number), far too large: it is in \(unit), e.g. \(example(for: name))."
            }
            if let number = value as? Double, number != number.rounded() {
                // |number| < 1e15 here, so the cents fit in an Int64 (the fuzzer found the trap without this bound).
                let hint =
                    name == "cancellation_grace_seconds"
                    ? "write a whole number of seconds such as 120"
                    : "write \(Int64((number * 100).rounded())) for \(number) \(currency)"
                return "'\(name)' is \(number), but it is in \(unit): \(hint)."
            }
            if value is String || value is Bool || value is [Any] || value is [String: Any] {
                return "'\(name)' must be a number in \(unit), e.g. \(example(for: name)) (not quoted)."
            }
        }
        return nil
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    private static func expectation(for name: String) -> String {
        if amountFields.contains(name) { return "a whole number of minor units (cents)" }
        if name == "cancellation_grace_seconds" { return "a whole number of seconds" }
        if name == "currency" { return "an ISO 4217 currency code" }
        return "a value of the documented type"
    }

    private static func example(for name: String) -> String {
        switch name {
        case "currency": return #""currency": "EUR""#
        case "per_km": return #""per_km": 120 (1.20 per km)"#
        case "cancellation_grace_seconds": return #""cancellation_grace_seconds": 120"#
        default: return amountFields.contains(name) ? "\"\(name)\": 250 (2.50)" : "see the tariff file's documentation"
        }
    }
}
