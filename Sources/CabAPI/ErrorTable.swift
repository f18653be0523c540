import CabHTTP

/// The one table that turns errors from the domain and its modules into HTTP problems (STYLE.md §3).
enum ErrorTable {
    /// The problem for `error`, or nil when it is unknown (a 500).
    static func problem(for error: any Error) -> HTTPError? {
        switch error {
        case let e as HTTPError: return e
        case let e as APIError: return problem(for: e)
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
}
