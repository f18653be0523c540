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

    /// Creates a result.
    public init(
        name: String, addressLine: String, category: String, coordinate: Coordinate, distanceMeters: Double?,
        kind: PlaceKind, source: PlaceSourceID
    ) {
        self.name = name
        self.addressLine = addressLine
        self.category = category
        self.coordinate = coordinate
        self.distanceMeters = distanceMeters
        self.kind = kind
        self.source = source
    }
}
