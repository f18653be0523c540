#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The weights of the one formula that orders search candidates (docs/places.md, "Ranking"):
///
///     score = text + name bonus + i · importance − d · log₁₀(1 + distance / distanceScaleMeters)
///
/// - `text` (0 ... 1): the mean over the query's words of the best match among the place's words: exact
///   `exactWord`; the word being typed as a prefix `prefixWord + prefixCompletion · typed/word`; a typo
///   correction `typoWord − typoPerEdit · edits`; a house number inside a range `rangeHouseNumber`; a word of
///   the place's category (`hotel`, `museo`) `exactWord`, or `categoryPrefix` as a prefix.
/// - A **category search** is a query made only of category words ("hotel", "museo", "casino"): it asks for
///   places of that kind, so a name match counts `categoryNameFactor` of its value (a shop called "Casino" is
///   not what "casino" asks for), there is no name bonus, `i` is `categoryImportanceWeight` and `d` is
///   `categoryDistanceWeight` ("hotel" asks for the nearest hotel rather than the most famous).
/// - name bonus: `wholeNameBonus` when the query is one of the place's names, `namePrefixBonus` when a name
///   starts with it.
/// - `importance` (0 ... 1): computed at import (`PlaceImportance`); `i` is `importanceWeight`.
/// - `d` is `distanceWeight`; there is no distance term without a `near` point.
public struct PlaceRanking: Sendable, Equatable {
    /// A query word equal to a word of the place.
    public var exactWord: Double
    /// A house number found through a range ("8" in "6-10") rather than exactly.
    public var rangeHouseNumber: Double
    /// A word being typed that is a prefix of a word of the place: the base ...
    public var prefixWord: Double
    /// ... plus this times the share of the word already typed.
    public var prefixCompletion: Double
    /// A typo correction: this, ...
    public var typoWord: Double
    /// ... less this per edit.
    public var typoPerEdit: Double
    /// A query word that is a prefix of one of the category's words.
    public var categoryPrefix: Double
    /// The whole query is one of the place's names.
    public var wholeNameBonus: Double
    /// One of the place's names starts with the whole query.
    public var namePrefixBonus: Double
    /// Weight of the place's importance (0 ... 1).
    public var importanceWeight: Double
    /// Weight of the distance term for a name search.
    public var distanceWeight: Double
    /// In a category search: the share of its value a name match keeps.
    public var categoryNameFactor: Double
    /// In a category search: the weight of importance.
    public var categoryImportanceWeight: Double
    /// In a category search: the weight of the distance term.
    public var categoryDistanceWeight: Double
    /// The distance at which the distance term is log₁₀ 2, in metres.
    public var distanceScaleMeters: Double

    /// Creates a configuration; the defaults are the ones documented in docs/places.md.
    public init(
        exactWord: Double = 1, rangeHouseNumber: Double = 0.85, prefixWord: Double = 0.5,
        prefixCompletion: Double = 0.3, typoWord: Double = 0.75, typoPerEdit: Double = 0.15,
        categoryPrefix: Double = 0.7, wholeNameBonus: Double = 0.6, namePrefixBonus: Double = 0.2,
        importanceWeight: Double = 1.0, distanceWeight: Double = 0.3, categoryNameFactor: Double = 0.5,
        categoryImportanceWeight: Double = 0.5, categoryDistanceWeight: Double = 1.0, distanceScaleMeters: Double = 200
    ) {
        precondition(
            [
                exactWord, rangeHouseNumber, prefixWord, prefixCompletion, typoWord, typoPerEdit, categoryPrefix,
                wholeNameBonus, namePrefixBonus, importanceWeight, distanceWeight, categoryNameFactor,
                categoryImportanceWeight, categoryDistanceWeight,
            ].allSatisfy { $0.isFinite && $0 >= 0 }, "ranking weights are finite and not negative")
        precondition(distanceScaleMeters.isFinite && distanceScaleMeters > 0, "the distance scale is positive")
        self.exactWord = exactWord
        self.rangeHouseNumber = rangeHouseNumber
        self.prefixWord = prefixWord
        self.prefixCompletion = prefixCompletion
        self.typoWord = typoWord
        self.typoPerEdit = typoPerEdit
        self.categoryPrefix = categoryPrefix
        self.wholeNameBonus = wholeNameBonus
        self.namePrefixBonus = namePrefixBonus
        self.importanceWeight = importanceWeight
        self.distanceWeight = distanceWeight
        self.categoryNameFactor = categoryNameFactor
        self.categoryImportanceWeight = categoryImportanceWeight
        self.categoryDistanceWeight = categoryDistanceWeight
        self.distanceScaleMeters = distanceScaleMeters
    }

    /// How one query word met the best word of a place's names.
    public enum NameWordMatch: Sendable, Equatable {
        /// No word of the names matched.
        case none
        /// Equal to a word.
        case exact
        /// A house number inside a range or list, not the number itself.
        case rangeHouseNumber
        /// A prefix of a word of `length` letters, `typed` of them typed.
        case prefix(typed: Int, length: Int)
        /// A typo correction `edits` away.
        case typo(edits: Int)
    }

    /// How one query word met the words of a place's category.
    public enum CategoryWordMatch: Sendable, Equatable {
        /// No category word matched.
        case none
        /// A prefix of a category word.
        case prefix
        /// Equal to a category word.
        case exact
    }

    /// One query word against one place.
    public struct WordMatch: Sendable, Equatable {
        /// Against the names.
        public var name: NameWordMatch
        /// Against the category.
        public var category: CategoryWordMatch

        /// Creates a match.
        public init(name: NameWordMatch = .none, category: CategoryWordMatch = .none) {
            self.name = name
            self.category = category
        }
    }

    /// The value of a name match, 0 ... `exactWord`.
    public func value(of match: NameWordMatch) -> Double {
        switch match {
        case .none: 0
        case .exact: exactWord
        case .rangeHouseNumber: rangeHouseNumber
        case .prefix(let typed, let length):
            prefixWord + prefixCompletion * Double(typed) / Double(max(1, length, typed))
        case .typo(let edits): max(0, typoWord - typoPerEdit * Double(edits))
        }
    }

    /// The value of a category match.
    public func value(of match: CategoryWordMatch) -> Double {
        switch match {
        case .none: 0
        case .prefix: categoryPrefix
        case .exact: exactWord
        }
    }

    /// The value of one query word: the better of its name and category matches (the name match scaled by
    /// `categoryNameFactor` in a category search).
    public func value(of match: WordMatch, isCategorySearch: Bool) -> Double {
        max(value(of: match.name) * (isCategorySearch ? categoryNameFactor : 1), value(of: match.category))
    }

    /// How the whole query relates to the place's names.
    public enum NameMatch: Sendable, Equatable {
        /// No name equals or starts with the query.
        case none
        /// A name starts with the query.
        case prefix
        /// A name equals the query.
        case whole
    }

    /// The score of a candidate (higher first).
    /// - Parameters:
    ///   - words: the match of each query word (empty counts as no text match).
    ///   - name: how the whole query met the names.
    ///   - importance: the place's importance, 0 ... 1.
    ///   - distanceMeters: from the `near` point; nil when none was given.
    ///   - isCategorySearch: every word of the query is a category word.
    public func score(
        words: [WordMatch], name: NameMatch, importance: Double, distanceMeters: Double?, isCategorySearch: Bool
    ) -> Double {
        let total = words.reduce(0) { $0 + value(of: $1, isCategorySearch: isCategorySearch) }
        let text = words.isEmpty ? 0 : total / Double(words.count)
        let bonus =
            switch isCategorySearch ? .none : name {
            case .none: 0.0
            case .prefix: namePrefixBonus
            case .whole: wholeNameBonus
            }
        var score = text + bonus + (isCategorySearch ? categoryImportanceWeight : importanceWeight) * importance
        if let distanceMeters {
            let weight = isCategorySearch ? categoryDistanceWeight : distanceWeight
            score -= weight * log10(1 + max(0, distanceMeters) / distanceScaleMeters)
        }
        return score
    }
}
