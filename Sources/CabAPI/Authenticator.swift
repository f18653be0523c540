import CabCore
import CabHTTP

/// Who is calling: the bearer token (or, for `EventSource` streams that cannot send headers, the `access_token`
/// query parameter) resolved through the store to a `Principal`. A wrong or missing token is a 401.
struct Authenticator: Sendable {
    let accounts: any AccountRepository & Sendable

    /// The caller, or a 401 problem.
    func principal(for request: HTTPRequest) throws(HTTPError) -> Principal {
        guard let token = request.bearerToken ?? request.query["access_token"], !token.isEmpty else {
            throw Self.unauthorized(
                "Send `Authorization: Bearer TOKEN` with the token you got when the account was created.")
        }
        let found: Principal?
        do {
            found = try accounts.principal(forTokenHash: TokenAuthority.tokenHash(token))
        } catch {
            throw ProblemType.storeUnavailable.error("The account store could not be read; try again.")
        }
        guard let found else {
            throw Self.unauthorized("The token is not valid (unknown or revoked); create an account to get a new one.")
        }
        return found
    }

    /// The caller, who must have one of `roles`; another role gets a 403 saying which roles may call.
    func principal(for request: HTTPRequest, roles: Set<Role>) throws(HTTPError) -> Principal {
        let p = try principal(for: request)
        guard roles.contains(p.role) else {
            let names = roles.map(\.rawValue).sorted().joined(separator: " or ")
            throw ProblemType.forbidden.error("Only a \(names) may do this; you are a \(p.role.rawValue).")
        }
        return p
    }

    /// The calling driver; any other role gets the 403 of `principal(for:roles:)`.
    func driver(for request: HTTPRequest) throws(HTTPError) -> DriverID {
        let principal = try principal(for: request, roles: [.driver])
        guard let id = principal.driverID else { throw Self.unauthorized("The token names no driver.") }
        return id
    }

    static func unauthorized(_ detail: String) -> HTTPError {
        ProblemType.unauthorized.error(detail, headers: ["WWW-Authenticate": "Bearer"])
    }
}
