#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How important a place is, 0 ... 1, computed once at import from what OSM says about it (docs/places.md,
/// "Importance"):
///
///     importance = min(1, kindWeight · kind + wikiWeight · wiki + languagesWeight · languages + sizeWeight · size)
///
/// - `kind` (0 ... 1): what the feature is: the strongest of its tags in `PlaceCategory` (an attraction, museum,
///   station, hospital or casino ranks above a shop or a bus stop; `place=city` above `place=neighbourhood`).
/// - `wiki` (0 or 1): it has a `wikidata` or `wikipedia` tag (someone wrote an encyclopaedia article about it).
/// - `languages` (0 ... 1): how many languages name it (`name:xx` tags), saturating at `languagesSaturation`.
/// - `size` (0 ... 1): the area of its outline, log-scaled from `smallAreaSquareMeters` (0) to
///   `largeAreaSquareMeters` (1); for a street, its merged length from `shortStreetMeters` to `longStreetMeters`.
///
/// Rows are stored in importance order, so the index returns the most important matches first.
public struct PlaceImportance: Sendable, Equatable {
    /// Weight of the feature kind.
    public var kindWeight: Double
    /// Weight of a `wikidata`/`wikipedia` tag.
    public var wikiWeight: Double
    /// Weight of the number of languages it is named in.
    public var languagesWeight: Double
    /// Languages (counting the plain `name`) at which `languages` reaches 1.
    public var languagesSaturation: Int
    /// Weight of the size of its outline or length.
    public var sizeWeight: Double
    /// Outline area that counts as size 0 (a kiosk), in square metres.
    public var smallAreaSquareMeters: Double
    /// Outline area that counts as size 1 (a city district), in square metres.
    public var largeAreaSquareMeters: Double
    /// Street length that counts as size 0, in metres.
    public var shortStreetMeters: Double
    /// Street length that counts as size 1 (a main avenue), in metres.
    public var longStreetMeters: Double

    /// Creates a configuration; the defaults are the ones documented in docs/places.md.
    public init(
        kindWeight: Double = 0.6, wikiWeight: Double = 0.25, languagesWeight: Double = 0.1,
        languagesSaturation: Int = 10, sizeWeight: Double = 0.1, smallAreaSquareMeters: Double = 100,
        largeAreaSquareMeters: Double = 1_000_000, shortStreetMeters: Double = 50, longStreetMeters: Double = 5000
    ) {
        precondition(
            [kindWeight, wikiWeight, languagesWeight, sizeWeight].allSatisfy { $0.isFinite && $0 >= 0 },
            "importance weights are finite and not negative")
        precondition(languagesSaturation >= 1, "the languages saturation is at least one")
        precondition(
            smallAreaSquareMeters > 0 && largeAreaSquareMeters > smallAreaSquareMeters && shortStreetMeters > 0
                && longStreetMeters > shortStreetMeters, "size ranges run from a positive low to a higher high")
        self.kindWeight = kindWeight
        self.wikiWeight = wikiWeight
        self.languagesWeight = languagesWeight
        self.languagesSaturation = languagesSaturation
        self.sizeWeight = sizeWeight
        self.smallAreaSquareMeters = smallAreaSquareMeters
        self.largeAreaSquareMeters = largeAreaSquareMeters
        self.shortStreetMeters = shortStreetMeters
        self.longStreetMeters = longStreetMeters
    }

    /// What the formula reads about one place.
    public struct Signals: Sendable, Equatable {
        /// The kind score of its strongest tag, 0 ... 100 (`PlaceCategory.importance`).
        public var kind: Int
        /// It has a `wikidata` or `wikipedia` tag.
        public var hasWiki: Bool
        /// Languages it is named in, the plain `name` counting as one.
        public var languages: Int
        /// The area of its outline in square metres (0 for a point or a line).
        public var areaSquareMeters: Double
        /// Its length in metres when it is a street (0 otherwise).
        public var streetLengthMeters: Double

        /// Creates the signals.
        public init(
            kind: Int, hasWiki: Bool = false, languages: Int = 1, areaSquareMeters: Double = 0,
            streetLengthMeters: Double = 0
        ) {
            self.kind = kind
            self.hasWiki = hasWiki
            self.languages = languages
            self.areaSquareMeters = areaSquareMeters
            self.streetLengthMeters = streetLengthMeters
        }
    }

    /// The importance of a place with `signals`, 0 ... 1.
    public func score(_ signals: Signals) -> Double {
        let kind = Double(min(100, max(0, signals.kind))) / 100
        let wiki = signals.hasWiki ? 1.0 : 0.0
        let languages = min(1, Double(max(0, signals.languages - 1)) / Double(max(1, languagesSaturation - 1)))
        let size = max(
            Self.logScale(signals.areaSquareMeters, from: smallAreaSquareMeters, to: largeAreaSquareMeters),
            Self.logScale(signals.streetLengthMeters, from: shortStreetMeters, to: longStreetMeters))
        let total = kindWeight * kind + wikiWeight * wiki + languagesWeight * languages + sizeWeight * size
        return min(1, max(0, total))
    }

    /// 0 at or below `low`, 1 at or above `high`, logarithmic between.
    static func logScale(_ value: Double, from low: Double, to high: Double) -> Double {
        guard value > low else { return 0 }
        return min(1, log10(value / low) / log10(high / low))
    }
}
