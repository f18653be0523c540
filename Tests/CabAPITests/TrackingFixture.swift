import CabAPI
import CabCore
import CabDispatch
import CabHTTP
import CabStore
import CabTestSupport
import CabTracking
import Foundation
import Synchronization

/// An in-process `CabApplication` with tracking on a live server (127.0.0.1, port 0), a store with two drivers,
/// a rider and a dispatcher, and a manual clock. Timers are off: tests call `tracking.tick()` themselves.
final class TrackingFixture: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` of a Sendable type or set once in init.
    let store: SQLiteStore
    let tracking: TrackingService
    let server: HTTPServer
    let port: Int
    let metrics = MetricsRegistry()
    let clock: ManualClock
    let accessLog = LogLines()
    let driverA = DriverID.random()
    let driverB = DriverID.random()
    // RAND_bytes does not fail here
    let tokenA = "dr_token_a_" + TokenAuthority.hex(try! TokenAuthority.randomBytes(8))
    let tokenB = "dr_token_b_" + TokenAuthority.hex(try! TokenAuthority.randomBytes(8))  // idem
    let riderToken = "ri_token_" + TokenAuthority.hex(try! TokenAuthority.randomBytes(8))  // idem
    let dispatcherToken = "dp_token_" + TokenAuthority.hex(try! TokenAuthority.randomBytes(8))  // idem

    /// `history` wraps the store as the trail repository (default: the store itself); `workerThreads` are the
    /// server's epoll threads.
    init(
        configuration: TrackingConfiguration = TrackingFixture.configuration(),
        history: (SQLiteStore) -> any LocationHistoryRepository = { $0 }, workerThreads: Int = 2
    ) throws {
        let directory = try TestData.temporaryDirectory("tracking")
        store = try SQLiteStore(
            path: directory.appendingPathComponent("cab.sqlite").path,
            configuration: .init(durable: false))
        clock = ManualClock(Instant(millisecondsSinceEpoch: 1_780_000_000_000))
        let start = clock.now()
        try store.createDriver(
            Driver(
                id: driverA, name: "A", vehicle: "white Prius", plate: "ABC-1", vehicleType: .standard, createdAt: start
            ),
            tokenHash: TokenAuthority.tokenHash(tokenA))
        try store.createDriver(
            Driver(id: driverB, name: "B", vehicle: "grey van", plate: "ABC-2", vehicleType: .large, createdAt: start),
            tokenHash: TokenAuthority.tokenHash(tokenB))
        try store.createRider(
            Rider(id: .random(), name: "R", createdAt: start), tokenHash: TokenAuthority.tokenHash(riderToken))
        try store.createDispatcher(
            Dispatcher(id: .random(), name: "D", createdAt: start), tokenHash: TokenAuthority.tokenHash(dispatcherToken)
        )
        let clock = self.clock
        tracking = TrackingService(
            configuration: configuration, accounts: store, history: history(store), metrics: metrics,
            now: { clock.now() })
        let services = Services(store: store, now: { clock.now() })
        var withTracking = services
        withTracking.tracking = tracking
        let app = CabApplication(
            configuration: APIConfiguration(publicDirectory: nil), services: withTracking, metrics: metrics)
        let log = accessLog
        server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, workerThreads: workerThreads),
            router: app.makeRouter(), metrics: metrics, accessLog: { line in log.append(line) },
            errorLog: nil, errorMapper: app.errorMapper(log: nil))
        port = try server.start()
    }

    deinit {
        server.shutdown()
        tracking.shutdown()
        store.close()
    }

    static func configuration(
        rateLimitBurst: Double = 1_000, streamBufferCapacity: Int = 2_048
    ) -> TrackingConfiguration {
        TrackingConfiguration(
            ingest: IngestConfiguration(rateLimitBurst: rateLimitBurst), tickInterval: nil, heartbeatInterval: nil,
            streamBufferCapacity: streamBufferCapacity)
    }

    /// The current time as RFC 3339, moved by `seconds`.
    func time(_ seconds: Double = 0) -> String {
        RFC3339.format(clock.now().adding(milliseconds: Int64(seconds * 1000)))
    }

    /// One fix as JSON.
    func fix(_ lat: Double, _ lon: Double, at seconds: Double = 0, accuracy: Double = 5) -> [String: Any] {
        ["lat": lat, "lon": lon, "time": time(seconds), "accuracy": accuracy, "speed": 8.5, "heading": 90, "seq": 1]
    }

    /// `POST /v1/driver/locations` with `fixes` as `token`.
    func post(_ fixes: [[String: Any]], token: String?, extra: [String: Any] = [:]) throws -> HTTPTestResponse {
        var body = extra
        body["fixes"] = fixes
        return try request("POST", "/v1/driver/locations", token: token, json: body)
    }

    func request(
        _ method: String, _ path: String, token: String? = nil, json: Any? = nil, headers: [String: String] = [:],
        rawBody: [UInt8] = []
    ) throws -> HTTPTestResponse {
        var h = headers
        if let token { h["Authorization"] = "Bearer \(token)" }
        var body = rawBody
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            h["Content-Type"] = "application/json"
        }
        let connection = try HTTPTestConnection(port: port)
        try connection.sendRequest(method, path, headers: h, body: body)
        return try connection.readResponse(method: method)
    }

    /// The value of the series `name{labels}` in `/metrics` (0 when absent).
    func metric(_ series: String) throws -> Double {
        let text = try request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? .nan
        }
        return 0
    }
}

/// Lines written from server threads.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
