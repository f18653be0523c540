/// An ISO 4217 currency: its three-letter code and how many minor-unit digits it has (EUR 2, JPY 0, KWD 3).
///
/// Only codes in `Currency.known` are accepted; JSON shape: the code as a string, `"EUR"`.
public struct Currency: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The upper-case ISO 4217 alphabetic code.
    public let code: String
    /// Digits after the decimal point in the minor unit (cents: 2).
    public let minorUnitDigits: Int

    /// Looks `code` up (case-insensitive) in the ISO 4217 list; throws `.unknownCurrency` otherwise.
    public init(code: String) throws(CoreError) {
        let upper = code.uppercased()
        guard let digits = Currency.known[upper] else {
            throw CoreError(
                .unknownCurrency, "'\(code.prefix(16))' is not an ISO 4217 currency code; use one such as EUR or USD")
        }
        self.code = upper
        self.minorUnitDigits = digits
    }

    /// The euro.
    public static let eur = Currency(checked: "EUR", 2)
    /// The US dollar.
    public static let usd = Currency(checked: "USD", 2)

    private init(checked code: String, _ digits: Int) {
        self.code = code
        self.minorUnitDigits = digits
    }

    /// Minor units in one major unit (100 for EUR).
    public var minorUnitsPerMajor: Int64 {
        var n: Int64 = 1
        for _ in 0..<minorUnitDigits { n *= 10 }
        return n
    }

    /// The code.
    public var description: String { code }

    /// Decodes a code string, refusing unknown codes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Currency(code: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the code string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    /// Active ISO 4217 codes with their minor-unit digits (funds and precious metals left out).
    public static let known: [String: Int] = {
        var table: [String: Int] = [:]
        let twoDigits = """
            AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF \
            CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL \
            HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP \
            MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD \
            SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS \
            VES WST XCD YER ZAR ZMW ZWG
            """
        for code in twoDigits.split(separator: " ") { table[String(code)] = 2 }
        for code in "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF".split(separator: " ") {
            table[String(code)] = 0
        }
        for code in "BHD IQD JOD KWD LYD OMR TND".split(separator: " ") { table[String(code)] = 3 }
        return table
    }()
}
