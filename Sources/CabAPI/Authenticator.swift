import CabCore
import CabHTTP

/// Who is calling: the bearer token (or, for `EventSource` streams that cannot send headers, the `access_token`
/// query parameter) resolved through the store to a `Principal`. A wrong or missing token is a 401.
struct Authenticator: Sendable {
    let accounts: any AccountRepository & Sendable

    /// The caller, or a 401 problem.
    func principal(for request: HTTPRequest) throws(HTTPError) -> Principal {
        let token = try Self.token(of: request)
        let found: Principal?
        do {
            found = try accounts.principal(forTokenHash: TokenAuthority.tokenHash(token))
        } catch {
            throw ProblemType.storeUnavailable.error(
                "The account store could not be read; try again.", headers: ["Retry-After": "1"])
        }
        guard let found else {
            throw Self.unauthorized("The token is not valid (unknown or revoked); create an account to get a new one.")
        }
        return found
    }

    /// The caller, who must have one of `roles`; another role gets a 403 saying which roles may call.
    func principal(for request: HTTPRequest, roles: Set<Role>) throws(HTTPError) -> Principal {
        try Self.require(principal(for: request), in: roles)
    }

    /// `p` when it has one of `roles`, else the 403 saying which roles may call.
    private static func require(_ p: Principal, in roles: Set<Role>) throws(HTTPError) -> Principal {
        guard roles.contains(p.role) else {
            let names = roles.map(\.rawValue).sorted().joined(separator: " or ")
            throw ProblemType.forbidden.error("Only a \(names) may do this; you are a \(p.role.rawValue).")
        }
        return p
    }

    /// The calling driver; any other role gets the 403 of `principal(for:roles:)`.
    func driver(for request: HTTPRequest) throws(HTTPError) -> DriverID {
        try Self.driver(principal(for: request, roles: [.driver]))
    }

    /// The calling driver when the store knows the token without I/O (`cachedPrincipal`); nil when finding
    /// out would read the store. A missing token or another role is refused as by `driver(for:)`.
    func cachedDriver(for request: HTTPRequest) throws(HTTPError) -> DriverID? {
        let token = try Self.token(of: request)
        guard let found = accounts.cachedPrincipal(forTokenHash: TokenAuthority.tokenHash(token)) else { return nil }
        return try Self.driver(Self.require(found, in: [.driver]))
    }

    /// The bearer token (or `access_token`) of `request`; a 401 when there is none.
    static func token(of request: HTTPRequest) throws(HTTPError) -> String {
        guard let token = request.bearerToken ?? request.query["access_token"], !token.isEmpty else {
            throw Self.unauthorized(
                "Send `Authorization: Bearer TOKEN` with the token you got when the account was created.")
        }
        return token
    }

    private static func driver(_ principal: Principal) throws(HTTPError) -> DriverID {
        guard let id = principal.driverID else { throw Self.unauthorized("The token names no driver.") }
        return id
    }

    static func unauthorized(_ detail: String) -> HTTPError {
        ProblemType.unauthorized.error(detail, headers: ["WWW-Authenticate": "Bearer"])
    }
}
