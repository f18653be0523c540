import CabCore
import Foundation
import CabHTTP
import CabPlaces
import CabRouting
import CabStore

/// The one table that turns errors from the domain and its modules into HTTP problems (STYLE.md §3).
enum ErrorTable {
    /// The problem for `error`, or nil when it is unknown (a 500).
    static func problem(for error: any Error) -> HTTPError? {
        switch error {
        case let e as HTTPError: return e
        case let e as APIError: return problem(for: e)
        case let e as RoutingError: return problem(for: e)
        case let e as PlacesError:
            return e.isCallerError ? HTTPError(status: 400, title: "Invalid search", detail: e.message) : nil
        case let e as CoreError: return problem(for: e)
        case let e as StoreError: return problem(for: e)
        default: return nil
        }
    }

    static func problem(for error: APIError) -> HTTPError? {
        switch error.code.name {
        // Dispatch and trips (issue 7).
        case APIError.Code.offerNotOpen.name: return HTTPError(status: 409, title: "No open offer", detail: error.message)
        // The journey (issue 13).
        case APIError.Code.tripOpen.name: return HTTPError(status: 409, title: "Trip still open", detail: error.message)
        case APIError.Code.driverBusy.name: return HTTPError(status: 409, title: "Driver busy", detail: error.message)
        case APIError.Code.tooFarFromPickup.name:
            return HTTPError(status: 409, title: "Too far from the pickup", detail: error.message)
        case APIError.Code.noRecentPosition.name: return HTTPError(status: 409, title: "No recent position", detail: error.message)
        case APIError.Code.invalidRating.name: return HTTPError(status: 422, title: "Invalid rating", detail: error.message)
        default: return nil
        }
    }

    static func problem(for error: RoutingError) -> HTTPError? {
        switch error.code {
        case .invalidCoordinate: return HTTPError(status: 400, title: "Invalid coordinate", detail: error.message)
        case .noRoadNearby:
            return HTTPError(status: 422, title: "No road nearby", detail: error.message + "; pick a point on or near a road of the map.")
        case .unroutable:
            return HTTPError(status: 422, title: "No route", detail: error.message + "; pick points that a car can drive between.")
        default: return nil
        }
    }

    // Bookings (issue 5): the domain's and the store's errors.

    static func problem(for error: CoreError) -> HTTPError? {
        switch error.code {
        case .illegalTransition, .transitionConflict, .tooEarly:
            return HTTPError(status: 409, title: "Not possible now", detail: error.message)
        case .notPermitted: return HTTPError(status: 403, title: "Forbidden", detail: error.message)
        case .alreadyRated: return HTTPError(status: 409, title: "Already rated", detail: error.message)
        case .notCompleted: return HTTPError(status: 409, title: "Trip not completed", detail: error.message)
        case .wrongCode: return HTTPError(status: 422, title: "Wrong code", detail: error.message)
        case .idempotencyConflict: return HTTPError(status: 422, title: "Idempotency-Key reused", detail: error.message)
        case .notFound: return .notFound(error.message)
        case .invalidValue, .invalidTariff, .unknownCurrency:
            return HTTPError(status: 400, title: "Invalid input", detail: error.message)
        default: return nil
        }
    }

    static func problem(for error: StoreError) -> HTTPError? {
        switch error.code {
        case .closed, .database, .unavailable:
            return HTTPError(
                status: 503, title: "Store unavailable", detail: "The store could not complete the request; try again.",
                headers: ["Retry-After": "1"])
        case .constraint:
            return HTTPError(status: 409, title: "Conflict", detail: "The request conflicts with stored data; re-read and try again.")
        default: return nil
        }
    }

    /// Members added to the problem document beside RFC 9457's: the machine-readable `code` of a domain or API
    /// error, and for a refused trip event the trip's `current_state` (details never name states).
    static func members(for error: any Error) -> [String: String] {
        switch error {
        case let e as CoreError:
            var members = ["code": e.code.name]
            if let state = e.currentTripState { members["current_state"] = state.rawValue }
            return members
        case let e as APIError: return ["code": e.code.name]
        default: return [:]
        }
    }

    /// `problem` as a response with `members` added to its JSON object (a member the problem has already wins).
    static func response(_ problem: HTTPError, members: [String: String], requestID: String?) -> HTTPResponse {
        var response = problem.response(requestID: requestID)
        guard !members.isEmpty, case .bytes(let bytes) = response.body,
            let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
            let data = try? JSONSerialization.data(
                withJSONObject: object.merging(members) { old, _ in old }, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return response }
        response.body = .bytes(Array(data))
        return response
    }
}
