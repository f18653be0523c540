import CabClient
import CabCore
import CabDispatch
import CabGeo
import CabRouting
import CabStore
import CabTestSupport
import CabTracking
import Foundation
import Synchronization
import Testing

@testable import CabAPI
@testable import CabHTTP

/// A road fixture with a river: two parallel east-west roads 150 m apart joined only by a bridge at the east end.
///
/// ```
///  n0 ─ n1 ─ ... ─ n9        north bank (100 m between nodes)
///                   │ bridge
///  s0 ─ s1 ─ ... ─ s9        south bank
/// ```
enum RiverMap {
    static let origin = Coordinate(latitude: 60.16, longitude: 24.90)
    static let projection = LocalProjection(referenceLatitude: origin.latitude)

    static func point(x: Double, y: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + y / projection.metersPerDegreeLatitude,
            longitude: origin.longitude + x / projection.metersPerDegreeLongitude)
    }

    static func north(_ i: Int) -> Coordinate { point(x: Double(i) * 100, y: 150) }
    static func south(_ i: Int) -> Coordinate { point(x: Double(i) * 100, y: 0) }

    static func graph() -> RoadGraph {
        var b = RoadNetworkBuilder()
        for i in 0..<10 {
            b.addNode(id: Int64(100 + i), coordinate: north(i))
            b.addNode(id: Int64(200 + i), coordinate: south(i))
        }
        b.addWay(id: 1, nodeIDs: (0..<10).map { Int64(100 + $0) }, tags: ["highway": "residential"])
        b.addWay(id: 2, nodeIDs: (0..<10).map { Int64(200 + $0) }, tags: ["highway": "residential"])
        b.addWay(id: 3, nodeIDs: [109, 209], tags: ["highway": "residential"])
        return b.build(profile: .taxi)
    }
}

/// The API in process over a temporary store, the river map, a live fleet and a manual clock: requests go
/// straight to the router's handlers; SSE streams are read by pulling their chunks.
final class TripHarness: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable and Sendable except `directory` (a URL, set once).
    let clock = ManualClock(Instant(millisecondsSinceEpoch: 1_780_000_000_000))
    /// SQLite, or with `CAB_TEST_STORE=postgres` a fresh database on the shared PostgreSQL server.
    let store: any ApplicationStore
    let fleet: LiveFleet<DriverID>
    /// Live tracking (`withTracking`): fixes posted to `/v1/driver/locations` reach the trail through its queue.
    let tracking: TrackingService?
    let dispatch: DispatchCoordinator
    let router: Router
    let mapper: HTTPErrorMapper
    let directory: URL
    let metrics: MetricsRegistry

    init(
        dispatch configuration: DispatchConfiguration = DispatchConfiguration(), graph: RoadGraph = RiverMap.graph(),
        table: TripTransitionTable = .standard, tariff: Tariff = .standard,
        withTracking: Bool = false
    ) throws {
        let metrics = MetricsRegistry()
        self.metrics = metrics
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cab-trips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if SharedPostgres.selected {
            store = try PostgresStore(.init(conninfo: SharedPostgres.freshDatabase(), connections: 3, writers: 2))
        } else {
            store = try SQLiteStore(
                path: directory.appendingPathComponent("store.sqlite").path, configuration: .init(durable: false))
        }
        let routing = RoutingService(graph: graph, index: nil)
        let clock = self.clock
        let settings = DispatchCoordinator.Configuration(dispatch: configuration, table: table)
        let eta = RoadETAEstimator(routing: routing)
        if withTracking {
            let tracking = TrackingService(
                configuration: TrackingFixture.configuration(), accounts: store, history: store, metrics: metrics,
                now: { clock.now() })
            self.tracking = tracking
            fleet = tracking.fleet
            dispatch = DispatchCoordinator(
                store: store, tracking: tracking, eta: eta, tariff: tariff, configuration: settings,
                now: { clock.now() })
        } else {
            tracking = nil
            fleet = LiveFleet<DriverID>()
            dispatch = DispatchCoordinator(
                store: store, fleet: fleet, eta: eta, tariff: tariff, configuration: settings, now: { clock.now() })
        }
        var services = Services(routing: routing, store: store, tariff: tariff, now: { clock.now() })
        services.tracking = tracking
        services.dispatch = dispatch
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: services, metrics: metrics)
        router = app.makeRouter()
        mapper = app.errorMapper(log: nil)
    }

    deinit {
        tracking?.shutdown()
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    struct Answer {
        var status: Int
        var json: [String: Any]
        var response: HTTPResponse
        var string: (String) -> String? { { self.json[$0] as? String } }
    }

    /// Calls the API as a client would.
    @discardableResult
    func call(
        _ method: String, _ path: String, token: String? = nil, body: [String: Any]? = nil,
        query: [String: String] = [:]
    ) -> Answer {
        var request = HTTPRequest(method: method, path: path, query: query, requestID: "test")
        if let token { request.headers["authorization"] = "Bearer \(token)" }
        // test bodies are plain JSON values
        if let body { request.body = Array(try! JSONSerialization.data(withJSONObject: body)) }
        var response: HTTPResponse
        switch router.match(method: method, path: path) {
        case .found(let route, let parameters):
            request.pathParameters = parameters
            do {
                response = try route.handler(request)
                // A deferred answer (a booking waiting for its group commit) is waited for, as the server would.
                if case .deferred(let pending) = response.body { response = try pending.wait() }
                // A new booking's dispatch starts from the trip service's queue: the client's next step sees it.
                dispatch.waitForQueuedBookings()
            } catch {
                response = mapper(error, request)
            }
        default:
            response = HTTPResponse(status: 404)
        }
        var json: [String: Any] = [:]
        if case .bytes(let bytes) = response.body, !bytes.isEmpty {
            json = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
        }
        if response.header("content-type") == "application/problem+json" {
            Self.checkCatalogued(json, response, method, path)
        }
        return Answer(status: response.status, json: json, response: response)
    }

    /// Every problem a test meets is in the catalogue, as documented (issue 14).
    static func checkCatalogued(_ json: [String: Any], _ response: HTTPResponse, _ method: String, _ path: String) {
        let code = json["code"] as? String ?? ""
        let entry = ProblemCatalogue.byCode[code]
        #expect(entry != nil, "problem code '\(code)' (\(method) \(path)) is not in ProblemCatalogue")
        #expect(
            entry.map { $0.status == response.status && $0.title == json["title"] as? String } ?? true,
            "problem '\(code)' answered \(response.status) \(json["title"] ?? "") unlike its catalogue entry")
        #expect(json["type"] as? String == "/problems/\(code)")
    }

    struct Account {
        var id: String
        var token: String
    }

    func rider() -> Account {
        let a = call("POST", "/v1/riders", body: ["name": "Rider"])
        return Account(id: a.string("id")!, token: a.string("token")!)
    }

    /// A driver, online, at `position`.
    func driver(at position: Coordinate, vehicleType: String = "standard", online: Bool = true) -> Account {
        let a = call(
            "POST", "/v1/drivers",
            body: ["name": "Driver", "vehicle": "Toyota", "plate": "ABC-1", "vehicle_type": vehicleType])
        let account = Account(id: a.string("id")!, token: a.string("token")!)
        move(account, to: position)
        if online { call("POST", "/v1/driver/status", token: account.token, body: ["status": "online"]) }
        return account
    }

    /// Reports a fix for `driver` at the current time (live index and stored trail).
    func move(_ driver: Account, to position: Coordinate, heading: Double? = nil) {
        let id = DriverID(driver.id)!
        let t = clock.now()
        let fix = LocationFix(
            coordinate: position, timeMilliseconds: t.millisecondsSinceEpoch, accuracyMeters: 5, headingDegrees: heading
        )
        _ = fleet.ingest([fix], from: id, now: t.millisecondsSinceEpoch)
        _ = try? store.append([DriverLocationRecord(driverID: id, time: t, coordinate: position)])
    }

    /// Books a trip from `pickup` to `dropoff` as `rider`.
    func book(_ rider: Account, from pickup: Coordinate, to dropoff: Coordinate) -> Answer {
        call(
            "POST", "/v1/bookings", token: rider.token,
            body: [
                "pickup": ["lat": pickup.latitude, "lon": pickup.longitude],
                "dropoff": ["lat": dropoff.latitude, "lon": dropoff.longitude],
            ])
    }

    /// A driver who has accepted a new booking from `pickup` to `dropoff` (standing at `at`, default the pickup):
    /// the booking's id and PIN, its rider and the driver.
    func acceptedTrip(
        from pickup: Coordinate = RiverMap.south(1), to dropoff: Coordinate = RiverMap.south(8),
        driverAt: Coordinate? = nil
    ) throws -> (id: String, pin: String, rider: Account, driver: Account) {
        let driver = self.driver(at: driverAt ?? pickup)
        let rider = self.rider()
        let booked = book(rider, from: pickup, to: dropoff)
        let id = try #require(booked.string("id"))
        let accepted = call("POST", "/v1/trips/\(id)/accept", token: driver.token)
        try #require(accepted.status == 200, "\(accepted.json)")
        return (id, try #require(booked.string("pin")), rider, driver)
    }

    /// The `code` of a problem answer.
    func code(_ answer: Answer) -> String? { answer.string("code") }

    func status(of booking: String) throws -> TripState {
        try #require(try store.booking(BookingID(booking)!)).status
    }

    /// Moves the clock and fires what is due.
    func advance(seconds: Double) {
        clock.advance(seconds: seconds)
        dispatch.tick()
    }
}

/// Reads an SSE response in process: pulls whatever the stream has queued and parses the events.
final class SSEReader {
    let stream: any ResponseStream
    private(set) var ended = false
    private var parser = ServerSentEventParser()

    init(_ answer: TripHarness.Answer) throws {
        guard case .stream(let s) = answer.response.body else {
            throw NotAStream(status: answer.status, problem: "\(answer.json)")
        }
        stream = s
    }

    /// The events queued since the last read: (name, JSON object).
    func read() -> [(event: String, data: [String: Any])] {
        var received: [ServerSentEvent] = []
        loop: while true {
            switch stream.next(waker: {}) {
            case .data(let bytes): received += parser.feed(bytes)
            case .pending: break loop
            case .end:
                ended = true
                break loop
            }
        }
        return received.filter { !$0.data.isEmpty }.map { event in
            let object = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any] ?? [:]
            return (event.type, object)
        }
    }

    func close() { stream.close() }
}

struct NotAStream: Error {
    var status: Int
    var problem: String
}

extension TripHarness {
    /// A dispatcher account's token, created straight in the store (as `cab admin create-dispatcher` does).
    func dispatcherToken() throws -> String {
        let token = try TokenAuthority.newToken(prefix: "dispatcher")
        try store.createDispatcher(
            Dispatcher(id: .random(), name: "Desk", createdAt: clock.now()), tokenHash: TokenAuthority.tokenHash(token))
        return token
    }
}
