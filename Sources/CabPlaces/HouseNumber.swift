/// The search tokens of an `addr:housenumber` value: its own tokens plus every number a range covers.
///
/// "6-10" finds 6, 8 and 10 (both ends even: one side of the street, as numbering runs in Finland and most of
/// Europe); "7-10" (mixed parity) finds 7, 8, 9 and 10; "1;3" finds 1 and 3; "33b" finds "33b" and "33".
/// Ranges wider than 50 numbers keep only their ends: they are data errors more often than blocks.
enum HouseNumber {
    /// The largest span a range is expanded over.
    static let maximumSpan = 50

    /// Folded, de-duplicated tokens for the text index.
    static func searchTokens(_ value: String) -> [String] {
        var tokens = TextFolding.tokens(value)
        for part in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let ends = part.split(whereSeparator: { $0 == "-" || $0 == "–" || $0 == "/" }).map {
                $0.filter { $0 != " " }
            }
            if ends.count == 2, let low = Int(ends[0]), let high = Int(ends[1]), low < high,
                high - low <= maximumSpan
            {
                let step = (low % 2 == high % 2) ? 2 : 1
                tokens += stride(from: low, through: high, by: step).map(String.init)
            }
            for token in TextFolding.tokens(part) {
                let digits = String(token.prefix { $0.isASCII && $0.isNumber })
                if !digits.isEmpty { tokens.append(digits) }
            }
        }
        var seen = Set<String>()
        return tokens.filter { seen.insert($0).inserted }
    }
}
