import CabHTTP

/// The languages a rider reads, best first, from the `lang` query parameter (`lang=sv` or `lang=sv,en`) or else
/// the `Accept-Language` header (`sv-FI, sv;q=0.9, en;q=0.5`): primary subtags in lower case, weights honoured,
/// `*` and `q=0` dropped. An empty list means "the local names".
enum LanguagePreference {
    /// The most languages read from one request.
    static let maximumLanguages = 8

    /// The rider's languages for `request`, or a 400 when `lang` is malformed.
    static func languages(for request: HTTPRequest) throws(HTTPError) -> [String] {
        if let lang = request.query["lang"] {
            var result: [String] = []
            for part in lang.split(separator: ",", omittingEmptySubsequences: false) {
                guard let code = primaryTag(part) else {
                    throw ProblemType.invalidParameter.error(
                        "'lang' must be language codes separated by commas, like lang=sv or lang=fi,en.")
                }
                if !result.contains(code) { result.append(code) }
            }
            return Array(result.prefix(maximumLanguages))
        }
        return parse(acceptLanguage: request.header("accept-language") ?? "")
    }

    /// The languages of an `Accept-Language` value, by weight (ties keep their order); malformed entries skipped.
    static func parse(acceptLanguage header: String) -> [String] {
        var weighted: [(code: String, weight: Double, order: Int)] = []
        for (order, entry) in header.split(separator: ",").prefix(32).enumerated() {
            let fields = entry.split(separator: ";")
            guard let first = fields.first, let code = primaryTag(first) else { continue }
            var weight = 1.0
            for field in fields.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " } }
                if pair.count == 2, pair[0] == "q" { weight = Double(pair[1]) ?? 0 }
            }
            guard weight > 0, weight <= 1 else { continue }
            if !weighted.contains(where: { $0.code == code }) { weighted.append((code, weight, order)) }
        }
        return weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.prefix(maximumLanguages).map(\.code)
    }

    /// "sv-FI" → "sv"; nil unless it starts with two or three ASCII letters.
    static func primaryTag(_ text: Substring) -> String? {
        let trimmed = text.filter { $0 != " " }
        let primary = trimmed.split(separator: "-", maxSplits: 1).first.map(String.init) ?? ""
        guard (2...3).contains(primary.count), primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return primary.lowercased()
    }
}
