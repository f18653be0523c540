import CabGeo
import CabPlaces

/// One place in JSON (`GET /v1/places`, `GET /v1/places/reverse`): `name` in the rider's language when the place
/// has one (`local_name` is then the name on the spot), what it is (`category`), its street address and the
/// district and city it lies in (`area`), and for a big venue where to be picked up (`pickup`).
struct PlaceResponse: Encodable, Sendable {
    var name: String
    var localName: String?
    var language: String?
    var address: String
    var area: String
    var category: String
    var kind: String
    var position: Coordinate
    var distanceMeters: Double?
    var osmID: String
    var pickup: Pickup?

    /// Where a cab stops for a big venue.
    struct Pickup: Encodable, Sendable {
        var name: String
        var kind: String
        var position: Coordinate
    }

    init(_ place: PlaceResult) {
        name = place.name
        localName = place.localName
        language = place.language
        address = place.addressLine
        area = place.area
        category = place.category
        kind = place.kind.rawValue
        position = place.coordinate
        distanceMeters = place.distanceMeters.map { ($0 * 10).rounded() / 10 }
        osmID = place.source.description
        pickup = place.pickup.map { Pickup(name: $0.name, kind: $0.kind, position: $0.coordinate) }
    }

    enum CodingKeys: String, CodingKey {
        case name, language, address, area, category, kind, position, pickup
        case localName = "local_name"
        case distanceMeters = "distance_m"
        case osmID = "osm_id"
    }
}

struct PlaceSearchResponse: Encodable, Sendable {
    var results: [PlaceResponse]
}

struct ReverseResponse: Encodable, Sendable {
    var result: PlaceResponse?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(result, forKey: .result)  // `null` when nothing is near, rather than a missing key
    }

    enum CodingKeys: String, CodingKey { case result }
}
