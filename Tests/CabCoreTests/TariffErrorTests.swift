import CabCore
import Foundation
import Testing

/// A tariff file that does not decode gets a message naming the field and the format (finding 9).
@Suite struct TariffErrorTests {
    func explain(_ text: String) -> String {
        let data = Data(text.utf8)
        do {
            _ = try JSONDecoder().decode(Tariff.self, from: data)
            return "decoded"
        } catch {
            return Tariff.explain(error, document: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any])
        }
    }

    @Test(arguments: [
        (
            #"{"currency": "EUR", "per_km": 1.2}"#,
            "'per_km' is 1.2, but it is in whole minor units (cents): write 120 for 1.2 EUR."
        ),
        (
            #"{"currency": "SEK", "per_km": 120, "base_fare": 2.5}"#,
            "'base_fare' is 2.5, but it is in whole minor units (cents): write 250 for 2.5 SEK."
        ),
        (
            #"{"currency": "EUR", "per_km": "120"}"#,
            "'per_km' must be a number in whole minor units (cents), e.g. \"per_km\": 120 (1.20 per km) (not quoted)."
        ),
        (
            #"{"currency": "EUR", "per_km": 120, "cancellation_grace_seconds": 1.5}"#,
            "'cancellation_grace_seconds' is 1.5, but it is in whole seconds: write a whole number of seconds such as 120."
        ),
        (#"{"per_km": 120}"#, "'currency' is missing; add it, e.g. \"currency\": \"EUR\"."),
        (
            #"{"currency": "EUR", "per_km": null}"#,
            "'per_km' is null; give a whole number of minor units (cents), e.g. \"per_km\": 120 (1.20 per km), or leave it out."
        ),
        (
            #"{"currency": 978, "per_km": 120}"#,
            "'currency' has the wrong type; it must be an ISO 4217 currency code, e.g. \"currency\": \"EUR\"."
        ),
    ])
    func eachMistakeIsExplained(text: String, expected: String) {
        #expect(explain(text) == expected)
    }

    /// Found by `make fuzz` (the tariff target): a huge amount trapped converting its hint to cents.
    @Test func aHugeAmountIsExplainedWithoutTrapping() {
        let huge = "1" + String(repeating: "6", count: 120) + "20"
        #expect(explain(#"{"currency": "EUR", "per_km": \#(huge)}"#).contains("far too large"))
        #expect(explain(#"{"currency": "EUR", "per_km": 1e300}"#).contains("far too large"))
        #expect(explain(#"{"currency": "EUR", "per_km": 12345678901234.5}"#).contains("write 1234567890123450"))
    }

    @Test func noRawDecodingErrorTextReachesTheOperator() {
        for text in [#"{"currency": "EUR", "per_km": 1.2}"#, #"{"currency": "EUR", "per_km": "x"}"#, #"{"per_km": 1}"#]
        {
            let message = explain(text)
            #expect(
                !message.contains("DecodingError") && !message.contains("CodingKeys")
                    && !message.contains("not valid JSON"))
        }
    }

    @Test func aZeroPricePerKilometreIsWarned() throws {
        let free = try JSONDecoder().decode(
            Tariff.self, from: Data(#"{"currency": "EUR", "per_km": 0, "per_minute": 30}"#.utf8))
        #expect(free.warning()?.contains("per_km is 0") == true)
        #expect(Tariff.standard.warning() == nil)
    }
}
