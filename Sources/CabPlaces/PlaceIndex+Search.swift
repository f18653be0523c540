import CabGeo
import CabSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension PlaceIndex {
    /// Finds places matching `query` as typed so far: the last word may be unfinished ("vanha kauppahal"),
    /// words may carry a typo ("stokmann"), diacritics are optional ("kamp" finds Kämp), a number after a street
    /// finds the address ("Aleksanterinkatu 21", also inside a range "6-10"), category words find categories
    /// ("hotel", "cafe"), and every name variant (`name:sv`, `name:en`, `alt_name`, ...) is searched. With `near`,
    /// nearer places rank higher and the nearest of equal matches comes first.
    ///
    /// - Returns: at most `limit` results, best first; empty when the text holds no letters or digits.
    /// - Throws: `PlacesError` with a caller code (`queryTooLong`, `invalidQuery`, `invalidLimit`,
    ///   `invalidCoordinate`) for bad input, `.storage` when SQLite fails. Never an FTS5 error text.
    /// `languages` (ISO 639 codes, best first: `["sv", "en"]`) choose the name shown: the first of them the place
    /// has a `name:xx` for, the local name beside it (`PlaceResult.localName`).
    public func search(_ query: String, near: Coordinate? = nil, limit: Int = 10, languages: [String] = [])
        throws(PlacesError) -> [PlaceResult]
    {
        guard (1...Self.maximumLimit).contains(limit) else {
            throw PlacesError(.invalidLimit, "The limit must be between 1 and \(Self.maximumLimit).")
        }
        if let near, !near.isValid {
            throw PlacesError(.invalidCoordinate, "The near point must be a valid latitude and longitude.")
        }
        let parsed = try PlaceQuery(query, maximumLength: Self.maximumQueryLength)
        guard !parsed.tokens.isEmpty else { return [] }
        return try withConnection { connection throws(PlacesError) -> [PlaceResult] in
            do throws(SQLiteError) {
                var search = PlaceSearch(
                    query: parsed, near: near, limit: limit, ranking: ranking, connection: connection)
                return try search.run().map { $0.result(distanceFrom: near, languages: languages) }
            } catch {
                throw Self.storageError(error)
            }
        }
    }
}

/// One forward search: gathers candidates in passes (strict; without house numbers; with typo corrections; all
/// but one word), each pass only while too few were found, then ranks them in Swift.
struct PlaceSearch {
    let query: PlaceQuery
    let near: Coordinate?
    let limit: Int
    let ranking: PlaceRanking
    let connection: PlaceConnection
    /// Every word of the query is a category word ("hotel", "museo"): distance weighs fully for every candidate.
    let isCategorySearch: Bool

    /// Candidates fetched per pass: enough for the ranking to reorder, few enough to stay fast.
    var fetchLimit: Int { max(64, limit * 4) }

    private var found: [Int: PlaceConnection.Row] = [:]
    /// Per query token, the typo corrections used and their edit distances.
    private var corrections: [Int: [String: Int]] = [:]

    init(query: PlaceQuery, near: Coordinate?, limit: Int, ranking: PlaceRanking, connection: PlaceConnection) {
        self.query = query
        self.near = near
        self.limit = limit
        self.ranking = ranking
        self.connection = connection
        isCategorySearch = query.tokens.allSatisfy { token in
            PlaceCategory.vocabulary.contains(token.text)
                || (token.isPrefix && token.text.count >= 3
                    && PlaceCategory.vocabulary.contains { $0.hasPrefix(token.text) })
        }
    }

    /// The ranked candidates, best first, at most `limit`.
    mutating func run() throws(SQLiteError) -> [PlaceConnection.Row] {
        try collect(query.matchExpression())
        if query.hasNumbers, found.count < limit { try collect(query.matchExpression(dropNumbers: true)) }
        if found.count < limit {
            try findCorrections()
            if !corrections.isEmpty {
                let alternatives = corrections.mapValues { $0.keys.sorted() }
                try collect(query.matchExpression(corrections: alternatives))
                if query.hasNumbers, found.count < limit {
                    try collect(query.matchExpression(corrections: alternatives, dropNumbers: true))
                }
            }
        }
        if found.isEmpty, query.tokens.count >= 2 {
            // All but one word: "hotel kamp helsinki" still finds Hotel Kämp, "NEAR(stockmann" finds Stockmann.
            let alternatives = corrections.mapValues { $0.keys.sorted() }
            for i in query.tokens.indices { try collect(query.matchExpression(corrections: alternatives, dropping: i)) }
        }
        return rank()
    }

    /// Adds the most important matches overall and, with `near`, the most important matches around it.
    private mutating func collect(_ expression: String?) throws(SQLiteError) {
        guard let expression else { return }
        for row in try connection.candidates(matching: expression, limit: fetchLimit) { found[row.id] = row }
        // The local pass intersects the text match with nine cell lists; for one or two typed letters that
        // intersection walks a large share of the index (p99 33 ms on a million places), and so short a
        // prefix says too little for "nearest first" to matter.
        if let near, query.tokens.reduce(0, { $0 + $1.text.count }) >= 3 {
            let local =
                expression + " AND cells: ("
                + PlaceSchema.neighbourhoodTokens(near).map(PlaceQuery.quoted).joined(separator: " OR ") + ")"
            for row in try connection.candidates(matching: local, limit: fetchLimit) { found[row.id] = row }
        }
    }

    /// Words of the index within a few edits of each query word (of four letters or more): trigram
    /// candidates from `typo_term`, kept when the edit distance (to a prefix, for the word being typed) is at
    /// most 1 for 4-5 letters and 2 from 6.
    private mutating func findCorrections() throws(SQLiteError) {
        for (i, token) in query.tokens.enumerated() where !token.isNumber {
            let scalars = Array(token.text.unicodeScalars)
            guard scalars.count >= 4, scalars.count <= 30 else { continue }
            let maximumEdits = scalars.count >= 6 ? 2 : 1
            var trigrams: [String] = []
            for start in 0...(scalars.count - 3) {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[start..<(start + 3)])
                let trigram = String(view)
                if !trigrams.contains(trigram) { trigrams.append(trigram) }
            }
            let statement = connection.typoTerms
            statement.reset()
            try statement.bind([trigrams.map(PlaceQuery.quoted).joined(separator: " OR "), 60])
            var kept: [String: Int] = [:]
            while try statement.step() {
                let term = statement.row.string(0)
                guard term != token.text else { continue }
                let d = EditDistance.distance(token.text, term, limit: maximumEdits, prefix: token.isPrefix)
                if d <= maximumEdits { kept[term] = d }
            }
            let best = kept.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(5)
            if !best.isEmpty { corrections[i] = Dictionary(uniqueKeysWithValues: best.map { ($0.key, $0.value) }) }
        }
    }

    /// Scores every candidate (text match, importance, distance), drops near-duplicates, keeps `limit`.
    private func rank() -> [PlaceConnection.Row] {
        let scored = found.values.map { row in (row: row, score: score(row)) }
            .sorted { ($0.score, -$0.row.id) > ($1.score, -$1.row.id) }
        var kept: [PlaceConnection.Row] = []
        for (row, _) in scored {
            let key = row.foldedNames.first ?? ""
            let duplicate = kept.contains {
                $0.category == row.category && ($0.foldedNames.first ?? "") == key
                    && $0.coordinate.distanceMeters(to: row.coordinate) < 200
            }
            if !duplicate { kept.append(row) }
            if kept.count == limit { break }
        }
        return kept
    }

    /// The query's words as `PlaceRanking` sees them against `row`, and how the whole query met its names.
    func matches(_ row: PlaceConnection.Row) -> (words: [PlaceRanking.WordMatch], name: PlaceRanking.NameMatch) {
        var nameTokens = Set(row.foldedNames.flatMap { $0.split(separator: " ").map(String.init) })
        if let housenumber = row.housenumber, row.kind == .address {
            nameTokens.formUnion(HouseNumber.searchTokens(housenumber))
        }
        let exactNumbers = row.kind == .address ? Set(TextFolding.tokens(row.housenumber ?? "")) : []
        let categoryTokens = PlaceCategory.foldedWords(forLabel: row.category)
        var words: [PlaceRanking.WordMatch] = []
        for (i, token) in query.tokens.enumerated() {
            var best = PlaceRanking.WordMatch()
            func consider(_ match: PlaceRanking.NameWordMatch) {
                if ranking.value(of: match) > ranking.value(of: best.name) { best.name = match }
            }
            for word in nameTokens {
                if word == token.text {
                    consider(
                        token.isNumber && row.kind == .address && !exactNumbers.contains(word)
                            ? .rangeHouseNumber : .exact)
                    if best.name == .exact { break }
                } else if word.hasPrefix(token.text) {
                    consider(.prefix(typed: token.text.count, length: word.count))
                } else if let edits = corrections[i]?[word] {
                    consider(.typo(edits: edits))
                }
            }
            for word in categoryTokens where best.category != .exact {
                if word == token.text {
                    best.category = .exact
                } else if word.hasPrefix(token.text) {
                    best.category = .prefix
                }
            }
            words.append(best)
        }
        let phrase = query.tokens.map(\.text).joined(separator: " ")
        var name = PlaceRanking.NameMatch.none
        for folded in row.foldedNames {
            if folded == phrase {
                name = .whole
                break
            }
            if folded.hasPrefix(phrase) { name = .prefix }
        }
        return (words, name)
    }

    func score(_ row: PlaceConnection.Row) -> Double {
        let (words, name) = matches(row)
        return ranking.score(
            words: words, name: name, importance: row.importance,
            distanceMeters: near.map { row.coordinate.distanceMeters(to: $0) }, isCategorySearch: isCategorySearch)
    }
}

extension PlaceCategory {
    private static let wordsByLabel: [String: String] = {
        // Several tags share a label ("church", "station"): a label's words are all of theirs, in a fixed order.
        var table: [String: [String]] = [:]
        for category in Array(known.values) + [street, square, metroStation] {
            for word in [category.label] + category.synonyms where !(table[category.label] ?? []).contains(word) {
                table[category.label, default: []].append(word)
            }
        }
        return table.mapValues { $0.sorted().joined(separator: " ") }
    }()

    private static let foldedWordsByLabel: [String: Set<String>] = wordsByLabel.mapValues {
        Set(TextFolding.tokens($0))
    }

    /// The folded searchable words of the category shown as `label`, computed once for the known labels.
    static func foldedWords(forLabel label: String) -> Set<String> {
        foldedWordsByLabel[label] ?? Set(TextFolding.tokens(label))
    }
}
