import CabCore
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
        case .closed, .database:
            return HTTPError(
                status: 503, title: "Store unavailable", detail: "The store could not complete the request; try again.",
                headers: ["Retry-After": "1"])
        case .constraint:
            return HTTPError(status: 409, title: "Conflict", detail: "The request conflicts with stored data; re-read and try again.")
        default: return nil
        }
    }
}
