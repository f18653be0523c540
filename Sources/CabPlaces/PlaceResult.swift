import CabGeo

/// What kind of thing a place is.
public enum PlaceKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A named point of interest: a shop, a hotel, a station, a named building.
    case poi
    /// A named street or square, merged from its OSM segments.
    case street
    /// A house address (`addr:street` + `addr:housenumber`).
    case address
    /// A named area: a city, neighbourhood, park or other named land use.
    case area
}

/// One answer of `PlaceIndex.search` or `PlaceIndex.reverse`.
public struct PlaceResult: Hashable, Sendable, Codable {
    /// The name to show ("Hotel Kämp", "Aleksanterinkatu 21").
    public var name: String
    /// The address line to show under the name ("Pohjoisesplanadi 29"); empty when unknown.
    public var addressLine: String
    /// A human category word ("hotel", "cafe", "street", "address", "neighbourhood").
    public var category: String
    /// Where to put the pin.
    public var coordinate: Coordinate
    /// Metres from the `near` point (search) or the tapped point (reverse); nil when no point was given.
    public var distanceMeters: Double?
    /// What kind of place this is.
    public var kind: PlaceKind
    /// The OSM element it came from (for a merged street, its first segment).
    public var source: PlaceSourceID
    /// The name on the spot (OSM `name`) when `name` is a translation of it ("Helsingin tuomiokirkko" beside
    /// "Helsingfors domkyrka"); nil when `name` is the local name.
    public var localName: String?
    /// The language of `name` when it is a translation (`sv`); nil for the local name.
    public var language: String?
    /// The district and city it lies in ("Kluuvi, Helsinki"), for telling same-named places apart; empty when
    /// the extract maps none.
    public var area: String
    /// Importance, 0 ... 1 (`PlaceImportance`).
    public var importance: Double
    /// Where a cab should stop for a big venue, when OSM maps a taxi rank or a platform at it.
    public var pickup: PlacePickupPoint?

    /// Creates a result.
    public init(
        name: String, addressLine: String, category: String, coordinate: Coordinate, distanceMeters: Double?,
        kind: PlaceKind, source: PlaceSourceID, localName: String? = nil, language: String? = nil, area: String = "",
        importance: Double = 0, pickup: PlacePickupPoint? = nil
    ) {
        self.name = name
        self.addressLine = addressLine
        self.category = category
        self.coordinate = coordinate
        self.distanceMeters = distanceMeters
        self.kind = kind
        self.source = source
        self.localName = localName
        self.language = language
        self.area = area
        self.importance = importance
        self.pickup = pickup
    }
}

/// A named place to be picked up at a big venue: the taxi rank (`amenity=taxi`) or the platform
/// (`public_transport=platform`) mapped at a station, an airport, a port or a stadium.
public struct PlacePickupPoint: Hashable, Sendable, Codable {
    /// What to call it ("Taxi", "Rautatientori taxi rank").
    public var name: String
    /// Where the cab stops.
    public var coordinate: Coordinate
    /// `taxi` for a taxi rank, `platform` for a public transport platform.
    public var kind: String

    /// Creates a pickup point.
    public init(name: String, coordinate: Coordinate, kind: String) {
        self.name = name
        self.coordinate = coordinate
        self.kind = kind
    }
}
