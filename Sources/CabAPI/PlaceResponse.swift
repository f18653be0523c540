import CabGeo
import CabPlaces

/// One place in JSON (`GET /v1/places`, `GET /v1/places/reverse`).
struct PlaceResponse: Encodable, Sendable {
    var name: String
    var address: String
    var category: String
    var kind: String
    var position: Coordinate
    var distanceMeters: Double?
    var osmID: String

    init(_ place: PlaceResult) {
        name = place.name
        address = place.addressLine
        category = place.category
        kind = place.kind.rawValue
        position = place.coordinate
        distanceMeters = place.distanceMeters.map { ($0 * 10).rounded() / 10 }
        osmID = place.source.description
    }

    enum CodingKeys: String, CodingKey {
        case name, address, category, kind, position
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
