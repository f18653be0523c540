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
    public func search(_ query: String, near: Coordinate? = nil, limit: Int = 10) throws(PlacesError)
        -> [PlaceResult]
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
                var search = PlaceSearch(query: parsed, near: near, limit: limit, connection: connection)
                return try search.run()
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
    let connection: PlaceConnection

    /// Candidates fetched per pass: enough for the ranking to reorder, few enough to stay fast.
    var fetchLimit: Int { max(64, limit * 4) }

    private var found: [Int: PlaceConnection.Row] = [:]
    /// Per query token, the typo corrections used and their edit distances.
    private var corrections: [Int: [String: Int]] = [:]

    init(query: PlaceQuery, near: Coordinate?, limit: Int, connection: PlaceConnection) {
        self.query = query
        self.near = near
        self.limit = limit
        self.connection = connection
    }

    mutating func run() throws(SQLiteError) -> [PlaceResult] {
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
    private func rank() -> [PlaceResult] {
        let scored = found.values.map { row in (row: row, score: score(row)) }
            .sorted { ($0.score, -$0.row.id) > ($1.score, -$1.row.id) }
        var kept: [PlaceConnection.Row] = []
        for (row, _) in scored {
            let key = TextFolding.folded(row.name)
            let duplicate = kept.contains {
                $0.category == row.category && TextFolding.folded($0.name) == key
                    && $0.coordinate.distanceMeters(to: row.coordinate) < 200
            }
            if !duplicate { kept.append(row) }
            if kept.count == limit { break }
        }
        return kept.map { $0.result(distanceFrom: near) }
    }

    func score(_ row: PlaceConnection.Row) -> Double {
        var nameTokens = Set(row.names.flatMap { TextFolding.tokens($0) })
        if let housenumber = row.housenumber, row.kind == .address {
            nameTokens.formUnion(HouseNumber.searchTokens(housenumber))
        }
        let exactNumbers = Set(TextFolding.tokens(row.housenumber ?? ""))
        let categoryTokens = Set(TextFolding.tokens(PlaceCategory.searchText(forLabel: row.category)))
        var text = 0.0
        var isCategoryQuery = true
        for (i, token) in query.tokens.enumerated() {
            var best = 0.0
            for word in nameTokens {
                if word == token.text {
                    best = token.isNumber && row.kind == .address && !exactNumbers.contains(word) ? 0.85 : 1
                    break
                }
                if word.hasPrefix(token.text) {
                    best = max(best, 0.5 + 0.3 * Double(token.text.count) / Double(word.count))
                } else if let edits = corrections[i]?[word] {
                    best = max(best, 0.75 - 0.15 * Double(edits))
                }
            }
            if !categoryTokens.contains(where: { $0.hasPrefix(token.text) }) { isCategoryQuery = false }
            for word in categoryTokens where best < 1 {
                if word == token.text { best = 1 } else if word.hasPrefix(token.text) { best = max(best, 0.7) }
            }
            text += best
        }
        var score = text / Double(query.tokens.count)
        let phrase = query.tokens.map(\.text).joined(separator: " ")
        var phraseBonus = 0.0
        for name in row.names {
            let folded = TextFolding.folded(name)
            if folded == phrase {
                phraseBonus = 0.6
                break
            }
            if folded.hasPrefix(phrase) { phraseBonus = 0.2 }
        }
        score += phraseBonus
        score += 0.5 * Double(row.importance) / 100
        if let near {
            // A category search ("hotel") is a request for the nearest one; a name search mostly is not.
            let weight = isCategoryQuery ? 1.0 : 0.3
            score -= weight * log10(1 + row.coordinate.distanceMeters(to: near) / 200)
        }
        return score
    }
}

extension PlaceCategory {
    private static let wordsByLabel: [String: String] = {
        var table: [String: String] = [:]
        for category in known.values { table[category.label] = category.searchText }
        for category in [street, square] { table[category.label] = category.searchText }
        return table
    }()

    /// The searchable words of the category shown as `label`.
    static func searchText(forLabel label: String) -> String { wordsByLabel[label] ?? label }
}
