import CabCore
import CabGeo
import CabHTTP
import Foundation

/// The JSON bodies of the account and booking endpoints, each with the checks that make a 400 say what to fix.
enum BookingRequestBodies {
    /// Longest name, vehicle, plate or place name accepted, in characters.
    static let maximumTextLength = 200

    /// `POST /v1/riders`.
    struct NewRider: Decodable {
        var name: String
    }

    /// `POST /v1/drivers`.
    struct NewDriver: Decodable {
        var name: String
        var vehicle: String
        var plate: String
        var vehicleType: String?

        enum CodingKeys: String, CodingKey {
            case name, vehicle, plate
            case vehicleType = "vehicle_type"
        }
    }

    /// `POST /v1/estimates`.
    struct Trip: Decodable {
        var pickup: Coordinate
        var dropoff: Coordinate
    }

    /// `POST /v1/bookings`, read by hand (`JSONBodyDecodable`): it is the busiest write.
    struct NewBooking: Decodable, JSONBodyDecodable {
        var pickup: Coordinate
        var dropoff: Coordinate
        var pickupName: String?
        var dropoffName: String?
        var vehicleType: String?

        enum CodingKeys: String, CodingKey {
            case pickup, dropoff
            case pickupName = "pickup_name"
            case dropoffName = "dropoff_name"
            case vehicleType = "vehicle_type"
        }

        init(json: JSONField) throws(HTTPError) {
            pickup = try json.required("pickup").coordinate()
            dropoff = try json.required("dropoff").coordinate()
            pickupName = try json.optional("pickup_name")?.string()
            dropoffName = try json.optional("dropoff_name")?.string()
            vehicleType = try json.optional("vehicle_type")?.string()
        }
    }

    /// `POST /v1/bookings/{id}/cancel`; the body may be empty.
    struct Cancel: Decodable {
        var reason: String?
    }

    /// `text` trimmed, non-empty and at most `maximumTextLength` characters, or a 400 naming `field`.
    static func requiredText(_ text: String, _ field: String) throws(HTTPError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw ProblemType.invalidValue.error("'\(field)' is empty; give a non-empty text.")
        }
        return try optionalText(trimmed, field) ?? trimmed
    }

    /// `text` trimmed (nil when absent or blank), at most `maximumTextLength` characters, or a 400.
    static func optionalText(_ text: String?, _ field: String) throws(HTTPError) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        guard trimmed.count <= maximumTextLength else {
            throw ProblemType.invalidValue.error(
                "'\(field)' is longer than \(maximumTextLength) characters; shorten it.")
        }
        try refuseControlCharacters(trimmed, field)
        return trimmed
    }

    /// A vehicle type by name, or a 400 listing the known ones.
    static func vehicleType(_ text: String?) throws(HTTPError) -> VehicleType? {
        guard let text else { return nil }
        guard let type = VehicleType(rawValue: text) else {
            let known = VehicleType.allCases.map(\.rawValue).joined(separator: ", ")
            throw ProblemType.invalidValue.error("'vehicle_type' must be one of: \(known).")
        }
        return type
    }

    /// Checks both ends of a trip: valid coordinates, and far enough apart to be a ride.
    static func validateTrip(pickup: Coordinate, dropoff: Coordinate) throws(HTTPError) {
        try HTTPRequest.validate(pickup, "pickup")
        try HTTPRequest.validate(dropoff, "dropoff")
        guard pickup.distanceMeters(to: dropoff) >= minimumTripMeters else {
            throw ProblemType.pickupEqualsDropoff.error(
                "The pickup and the dropoff are the same place (less than \(Int(minimumTripMeters)) m apart); "
                    + "choose a different destination.")
        }
    }

    /// The least straight-line distance between pickup and dropoff.
    static let minimumTripMeters = 10.0
}

extension JSONField {
    /// This field as `{"lat": …, "lon": …}` (range checks are the caller's, with the field's name).
    func coordinate() throws(HTTPError) -> Coordinate {
        Coordinate(latitude: try required("lat").double(), longitude: try required("lon").double())
    }
}
