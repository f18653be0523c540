import Foundation
import Testing

@testable import CabCore

@Suite struct MoneyTests {
    @Test func currenciesComeFromTheISOListWithTheirMinorUnits() throws {
        #expect(try Currency(code: "eur") == .eur)
        #expect(try Currency(code: "JPY").minorUnitDigits == 0)
        #expect(try Currency(code: "KWD").minorUnitDigits == 3)
        let error = #expect(throws: CoreError.self) { try Currency(code: "XYZ") }
        #expect(error?.code == .unknownCurrency)
    }

    @Test func formatsWithTheCurrencysDigits() throws {
        #expect(Money(minorUnits: 1200, currency: .eur).description == "12.00 EUR")
        #expect(Money(minorUnits: -5, currency: .eur).decimalString == "-0.05")
        #expect(Money(minorUnits: 500, currency: try Currency(code: "JPY")).decimalString == "500")
        #expect(Money(minorUnits: 1_234, currency: try Currency(code: "BHD")).decimalString == "1.234")
    }

    @Test func encodesMinorUnitsAndDecodesThem() throws {
        let money = Money(minorUnits: 1999, currency: .usd)
        let json = String(decoding: try JSONEncoder().encode(money), as: UTF8.self)
        #expect(json.contains("\"minor_units\":1999") && json.contains("\"amount\":\"19.99\""))
        #expect(try JSONDecoder().decode(Money.self, from: Data(json.utf8)) == money)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Money.self, from: Data(#"{"minor_units":1,"currency":"ABC"}"#.utf8))
        }
    }
}
