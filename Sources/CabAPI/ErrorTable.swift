import CabCore
import CabHTTP
import CabPlaces
import CabRouting
import CabStore

/// The one table that turns errors from the domain and its modules into HTTP problems (STYLE.md §3): each error
/// becomes an entry of `ProblemCatalogue`, with the error's safe message as the detail.
enum ErrorTable {
    /// The problem for `error`, or nil when it is unknown (a 500).
    static func problem(for error: any Error) -> HTTPError? {
        switch error {
        case let e as HTTPError: return e
        case let e as APIError: return catalogued(e.code.name, e.message)
        case let e as RoutingError: return problem(for: e)
        case let e as PlacesError: return e.isCallerError ? ProblemType.invalidSearch.error(e.message) : nil
        case let e as CoreError: return problem(for: e)
        case let e as StoreError: return problem(for: e)
        default: return nil
        }
    }

    /// The catalogue's entry for a domain error code, with `detail`; nil for a code the catalogue lacks (a 500,
    /// which `ProblemCatalogueTests` keeps from happening for every code the domain defines).
    static func catalogued(_ code: String, _ detail: String, members: [String: String] = [:]) -> HTTPError? {
        ProblemCatalogue.byCode[code].map { HTTPError($0, detail: detail, members: members) }
    }

    static func problem(for error: RoutingError) -> HTTPError? {
        switch error.code {
        case .invalidCoordinate: return ProblemType.invalidCoordinate.error(error.message)
        case .noRoadNearby:
            return ProblemType.noRoadNearby.error(error.message + "; pick a point on or near a road of the map.")
        case .unroutable:
            return ProblemType.noRoute.error(error.message + "; pick points that a car can drive between.")
        default: return nil
        }
    }

    /// The domain's errors keep their code on the wire; a refused trip event also names the trip's `current_state`
    /// (details never name states).
    static func problem(for error: CoreError) -> HTTPError? {
        var members: [String: String] = [:]
        if let state = error.currentTripState { members["current_state"] = state.rawValue }
        return catalogued(error.code.name, error.message, members: members)
    }

    static func problem(for error: StoreError) -> HTTPError? {
        switch error.code {
        case .closed, .database, .unavailable:
            return ProblemType.storeUnavailable.error(
                "The store could not complete the request; try again.", headers: ["Retry-After": "1"])
        case .misconfigured:
            // The database refused this node's login while it served (a password or role changed, the database
            // dropped): the node is what is at fault, not the request, and the operator's log says which.
            return ProblemType.storeUnavailable.error(
                "The server cannot log in to its database; nothing was done. Try again later.",
                headers: ["Retry-After": "30"])
        case .constraint:
            return ProblemType.conflict.error("The request conflicts with stored data; re-read and try again.")
        default: return nil
        }
    }
}
