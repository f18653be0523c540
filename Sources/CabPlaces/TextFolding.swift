/// Folds and splits text the way the index's FTS5 tokenizer (`unicode61 remove_diacritics 2`) does, so that
/// query tokens, the typo vocabulary and re-ranking all agree: lower case, Latin diacritics removed, split on
/// anything that is not a letter, digit or combining mark.
enum TextFolding {
    /// The folded tokens of `text` ("Hotel Kämp" → ["hotel", "kamp"]).
    /// - Complexity: O(n) in the length of `text`.
    static func tokens(_ text: some StringProtocol) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch classify(scalar) {
            case .mark:
                continue  // a combining diacritic: part of the token, and removed by folding
            case .separator:
                if !current.isEmpty {
                    result.append(String(current))
                    current = String.UnicodeScalarView()
                }
            case .tokenCharacter:
                for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                    current.append(baseLetter(lower))
                }
            }
        }
        if !current.isEmpty { result.append(String(current)) }
        return result
    }

    /// The folded form of the whole text, tokens joined by single spaces.
    static func folded(_ text: some StringProtocol) -> String { tokens(text).joined(separator: " ") }

    enum ScalarClass { case tokenCharacter, mark, separator }

    static func classify(_ scalar: Unicode.Scalar) -> ScalarClass {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return .tokenCharacter
        case .nonspacingMark, .spacingMark, .enclosingMark:
            return .mark
        default:
            return .separator
        }
    }

    /// `ä` → `a`, `č` → `c`: the base letter of a lower-case Latin-1 or Latin Extended-A letter.
    static func baseLetter(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let v = scalar.value
        guard v >= 0xC0, v <= 0x17F else { return scalar }
        let table = v < 0x100 ? latin1 : latinExtendedA
        let index = Int(v < 0x100 ? v - 0xC0 : v - 0x100)
        let mapped = table[index]
        return mapped == UInt8(ascii: "_") ? scalar : Unicode.Scalar(mapped)
    }

    // One byte per code point; "_" keeps the letter (æ, ð, ø, þ, ß, ĳ, ŋ, œ have no diacritic to remove).
    private static let latin1: [UInt8] = Array("aaaaaa_ceeeeiiii_nooooo_ouuuuy__aaaaaa_ceeeeiiii_nooooo_ouuuuy_y".utf8)
    private static let latinExtendedA: [UInt8] = Array(
        ("aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii__jjkk_llllllllllnnnnnnn__oooooo__rrrrrrssssssss"
            + "ttttttuuuuuuuuuuuuwwyyyzzzzzzs").utf8)

    /// True when every character is an ASCII digit.
    static func isNumber(_ token: String) -> Bool { !token.isEmpty && token.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }

    /// True when the token starts with a digit ("21", "21a", "8th").
    static func startsWithDigit(_ token: String) -> Bool { token.utf8.first.map { $0 >= 48 && $0 <= 57 } ?? false }
}

/// Edit distances over Unicode scalars (optimal string alignment: insertions, deletions, substitutions and
/// swaps of two neighbouring letters, each one edit: "casnio" is one edit from "casino"), bounded so that a
/// hopeless pair stops early.
enum EditDistance {
    /// The edit distance between `a` and `b`, or `limit + 1` once it is certainly more than `limit`.
    /// When `prefix` is true, `b` may be longer: the distance is to the closest prefix of `b` ("stokm" →
    /// "stockmann" is 1).
    /// - Complexity: O(|a| · |b|).
    static func distance(_ a: String, _ b: String, limit: Int, prefix: Bool = false) -> Int {
        let x = Array(a.unicodeScalars)
        let y = Array(b.unicodeScalars)
        if !prefix, abs(x.count - y.count) > limit { return limit + 1 }
        var beforePrevious = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1..<(y.count + 1) {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
                rowMinimum = min(rowMinimum, current[j])
            }
            // Row i - 1 all above the limit bounds row i too (a swap is never cheaper than the substitution
            // path through row i - 1), so stopping here is exact.
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        let result = prefix ? (previous.min() ?? 0) : previous[y.count]
        return min(result, limit + 1)
    }
}
