import CabCore
import CabHTTP
import CabStore

extension CabApplication {
    /// `POST /v1/riders` and `POST /v1/drivers`: open sign-up; the answer carries the bearer token, shown once.
    func registerAccountEndpoints(on router: inout Router) {
        router.post("/v1/riders") { [services] request in
            let body = try request.decodeJSON(BookingRequestBodies.NewRider.self)
            let name = try BookingRequestBodies.requiredText(body.name, "name")
            let store = try services.requireStore()
            let rider = Rider(id: .random(), name: name, createdAt: services.now())
            let token = try TokenAuthority.newToken(prefix: "rider")
            try store.createRider(rider, tokenHash: TokenAuthority.tokenHash(token))
            return .json(AccountResponse(id: rider.id.rawValue, name: rider.name, token: token), status: 201)
        }
        router.post("/v1/drivers") { [services] request in
            let body = try request.decodeJSON(BookingRequestBodies.NewDriver.self)
            let name = try BookingRequestBodies.requiredText(body.name, "name")
            let vehicle = try BookingRequestBodies.requiredText(body.vehicle, "vehicle")
            let plate = try BookingRequestBodies.requiredText(body.plate, "plate")
            let type = try BookingRequestBodies.vehicleType(body.vehicleType) ?? .standard
            let store = try services.requireStore()
            let driver = Driver(
                id: .random(), name: name, vehicle: vehicle, plate: plate, vehicleType: type, createdAt: services.now())
            let token = try TokenAuthority.newToken(prefix: "driver")
            try store.createDriver(driver, tokenHash: TokenAuthority.tokenHash(token))
            var answer = AccountResponse(id: driver.id.rawValue, name: driver.name, token: token)
            answer.vehicle = driver.vehicle
            answer.plate = driver.plate
            answer.vehicleType = driver.vehicleType.rawValue
            return .json(answer, status: 201)
        }
        // Who the token belongs to: lets an app (the driver page on a new device) sign in with a token it was given.
        router.get("/v1/me") { [self] request in
            let principal = try authenticate(request)
            let store = try services.requireStore()
            var answer = AccountResponse(role: principal.role.rawValue, id: "", name: "")
            switch principal.role {
            case .rider:
                guard let id = principal.riderID, let rider = try store.rider(id) else { throw Self.accountGone }
                (answer.id, answer.name) = (rider.id.rawValue, rider.name)
            case .driver:
                guard let id = principal.driverID, let driver = try store.driver(id) else { throw Self.accountGone }
                (answer.id, answer.name) = (driver.id.rawValue, driver.name)
                answer.vehicle = driver.vehicle
                answer.plate = driver.plate
                answer.vehicleType = driver.vehicleType.rawValue
            case .dispatcher:
                guard let id = principal.dispatcherID, let dispatcher = try store.dispatcher(id) else {
                    throw Self.accountGone
                }
                (answer.id, answer.name) = (dispatcher.id.rawValue, dispatcher.name)
            case .system:
                throw Self.accountGone
            }
            return .json(answer)
        }
    }

    /// `DELETE /v1/me`: signs out. The bearer token stops working at once, on every node of a cluster (the
    /// revocation is announced to the others; were Redis away, their caches let it go within
    /// `store.postgres_token_cache_ms`).
    func registerSignOut(on router: inout Router) {
        router.add("DELETE", "/v1/me") { [self] request in
            _ = try authenticate(request)
            let hash = TokenAuthority.tokenHash(try Authenticator.token(of: request))
            _ = try services.requireStore().revokeToken(hash, at: services.now())
            services.revocations?.announce(hash)
            return .noContent
        }
    }

    private static var accountGone: HTTPError {
        Authenticator.unauthorized("The token's account no longer exists; create an account to get a new token.")
    }

    /// Who is calling, resolved against the store (401 when the token is wrong or missing).
    func authenticate(_ request: HTTPRequest, roles: Set<Role> = [.rider, .driver, .dispatcher]) throws -> Principal {
        try Authenticator(accounts: services.requireStore()).principal(for: request, roles: roles)
    }
}

/// An account: `{"id", "name"}` plus the vehicle for a driver; a new account carries its `token` (shown once),
/// `GET /v1/me` carries the `role` instead. Absent fields are left out.
struct AccountResponse: Encodable {
    var role: String?
    var id: String
    var name: String
    var token: String?
    var vehicle: String?
    var plate: String?
    var vehicleType: String?

    enum CodingKeys: String, CodingKey {
        case role, id, name, token, vehicle, plate
        case vehicleType = "vehicle_type"
    }
}

extension Services {
    /// The store, or a 503 problem saying how to get one.
    func requireStore() throws(HTTPError) -> any ApplicationStore {
        guard let store else {
            throw ProblemType.noStore.error(
                "No data directory with a store is loaded; import a map with `cab import MAP.osm.pbf --data DIR`.")
        }
        return store
    }
}
