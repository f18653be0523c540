import CabHTTP
import CabPlaces
import CabRouting

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
        default: return nil
        }
    }

    static func problem(for error: APIError) -> HTTPError? {
        switch error.code.name {
        case "bad_input": return HTTPError(status: 400, title: "Invalid input", detail: error.message)
        case "unavailable": return HTTPError(status: 503, title: "Not available", detail: error.message)
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
}
