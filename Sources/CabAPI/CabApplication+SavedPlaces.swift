import CabCore
import CabGeo
import CabHTTP

extension CabApplication {
    /// How many recent destinations `GET /v1/me/places` offers.
    static let recentDestinationCount = 5
    /// How many of the rider's latest bookings those are drawn from.
    static let recentBookingsRead = 30

    /// `GET /v1/me/places` (saved places, then recent destinations), `PUT /v1/me/places/{label}` (save or
    /// replace), `DELETE /v1/me/places/{label}`: a rider's places, offered before they type.
    func registerSavedPlaceEndpoints(on router: inout Router) {
        router.get("/v1/me/places") { [self] request in
            let rider = try signedInRider(request)
            let store = try services.requireStore()
            let saved = try store.savedPlaces(of: rider)
            let bookings = try store.bookings(BookingQuery(riderID: rider, limit: Self.recentBookingsRead)).items
            let recent = RecentDestination.distinct(from: bookings, saved: saved, limit: Self.recentDestinationCount)
            return .json(
                MyPlacesResponse(saved: saved.map(SavedPlaceResponse.init), recent: recent.map(RecentResponse.init)))
        }
        router.add("PUT", "/v1/me/places/{label}") { [self] request in
            let rider = try signedInRider(request)
            let body = try request.decodeJSON(SavedPlaceBody.self)
            try HTTPRequest.validate(body.position, "position")
            let place = try SavedPlace(
                label: request.pathParameters["label"] ?? "", name: body.name, coordinate: body.position,
                address: body.address ?? "", updatedAt: services.now())
            let created = try services.requireStore().save(place, for: rider)
            return .json(SavedPlaceResponse(place), status: created ? 201 : 200)
        }
        router.add("DELETE", "/v1/me/places/{label}") { [self] request in
            let rider = try signedInRider(request)
            let label = request.pathParameters["label"] ?? ""
            guard try services.requireStore().removeSavedPlace(labeled: label, for: rider) else {
                throw HTTPError.notFound("You have no saved place labelled '\(label)'; GET /v1/me/places lists yours.")
            }
            return .noContent
        }
    }

    /// The calling rider (401 without a valid token, 403 for another role).
    private func signedInRider(_ request: HTTPRequest) throws -> RiderID {
        guard let id = try authenticate(request, roles: [.rider]).riderID else {
            throw ProblemType.forbidden.error("Only a rider has saved places.")
        }
        return id
    }
}

/// `PUT /v1/me/places/{label}`: `{"name": …, "position": {"lat": …, "lon": …}, "address": …}`.
struct SavedPlaceBody: Decodable {
    var name: String
    var position: Coordinate
    var address: String?
}

/// One saved place in JSON.
struct SavedPlaceResponse: Encodable {
    var label: String
    var name: String
    var address: String
    var position: Coordinate
    var updatedAt: String

    init(_ place: SavedPlace) {
        label = place.label
        name = place.name
        address = place.address
        position = place.coordinate
        updatedAt = RFC3339.format(place.updatedAt)
    }

    enum CodingKeys: String, CodingKey {
        case label, name, address, position
        case updatedAt = "updated_at"
    }
}

/// One recent destination in JSON.
struct RecentResponse: Encodable {
    var name: String?
    var position: Coordinate
    var bookedAt: String

    init(_ destination: RecentDestination) {
        name = destination.name
        position = destination.coordinate
        bookedAt = RFC3339.format(destination.bookedAt)
    }

    enum CodingKeys: String, CodingKey {
        case name, position
        case bookedAt = "booked_at"
    }
}

/// `GET /v1/me/places`.
struct MyPlacesResponse: Encodable {
    var saved: [SavedPlaceResponse]
    var recent: [RecentResponse]
}
