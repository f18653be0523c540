/// A search text checked and split into folded tokens. User text never reaches FTS5 raw: every token is made of
/// letters, digits and nothing else, and is quoted when it goes into a MATCH expression.
struct PlaceQuery: Sendable, Equatable {
    struct Token: Sendable, Equatable {
        /// Folded text: letters and digits only.
        var text: String
        /// True for the last token while the user is still typing it (no space after it).
        var isPrefix: Bool
        /// True when it starts with a digit (a house number).
        var isNumber: Bool
    }

    /// At most this many tokens are searched; the rest of a long query is ignored.
    static let maximumTokens = 8

    var tokens: [Token]

    /// Parses `text`.
    /// - Throws: `PlacesError.queryTooLong` past `maximumLength` characters, `.invalidQuery` on control characters
    ///   other than tab and newlines (which count as spaces).
    init(_ text: String, maximumLength: Int) throws(PlacesError) {
        guard text.count <= maximumLength else {
            throw PlacesError(.queryTooLong, "The search text is longer than \(maximumLength) characters.")
        }
        for scalar in text.unicodeScalars where scalar.properties.generalCategory == .control {
            guard scalar == "\t" || scalar == "\n" || scalar == "\r" else {
                throw PlacesError(.invalidQuery, "The search text contains control characters.")
            }
        }
        let words = TextFolding.tokens(text)
        let endsInWord = text.unicodeScalars.last.map { TextFolding.classify($0) != .separator } ?? false
        tokens = words.prefix(Self.maximumTokens).enumerated().map { i, word in
            Token(
                text: word, isPrefix: endsInWord && i == words.count - 1,
                isNumber: TextFolding.startsWithDigit(word))
        }
    }

    /// "stokmann" → `"stokmann"`: a token as an FTS5 string (doubling any quote, though tokens hold none).
    static func quoted(_ token: String) -> String {
        "\"" + token.replacingQuotes + "\""
    }

    /// The MATCH expression: every token (or one of its typo corrections) in `names`/`extra`, AND-ed; with
    /// `cells`, also one of those location cells. Words match as prefixes (a finished word still finds its
    /// longer forms: "hotel" finds "hotelli"); house numbers match exactly unless being typed.
    /// `dropping` leaves out one token (the "all but one word" fallback).
    func matchExpression(
        corrections: [Int: [String]] = [:], dropNumbers: Bool = false, dropping: Int? = nil, cells: [String]? = nil
    ) -> String? {
        var groups: [String] = []
        for (i, token) in tokens.enumerated() where !(dropNumbers && token.isNumber) && i != dropping {
            var alternatives = [Self.quoted(token.text) + (token.isNumber && !token.isPrefix ? "" : "*")]
            alternatives += (corrections[i] ?? []).map(Self.quoted)
            groups.append("{names extra}: (" + alternatives.joined(separator: " OR ") + ")")
        }
        guard !groups.isEmpty else { return nil }
        if let cells, !cells.isEmpty {
            groups.append("cells: (" + cells.map(Self.quoted).joined(separator: " OR ") + ")")
        }
        return groups.joined(separator: " AND ")
    }

    var hasNumbers: Bool { tokens.contains { $0.isNumber } }
}

extension String {
    fileprivate var replacingQuotes: String {
        var out = ""
        for c in self { out += c == "\"" ? "\"\"" : String(c) }
        return out
    }
}
