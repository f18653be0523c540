import CabAppModels
import CabClient
import CabGeo
import CabTestSupport
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Places in the Helsinki extract the tests use.
enum Helsinki {
    /// The central railway station square.
    static let station = Coordinate(latitude: 60.1699, longitude: 24.9384)
    /// Esplanadi, about 800 m south-east.
    static let esplanadi = Coordinate(latitude: 60.1655, longitude: 24.9466)
    /// Kamppi, about 600 m west of the station.
    static let kamppi = Coordinate(latitude: 60.1690, longitude: 24.9320)
    /// Out at sea, far outside the extract.
    static let offTheMap = Coordinate(latitude: 60.05, longitude: 25.40)
}

/// A real `cab serve` on a fresh copy of the imported Helsinki extract.
final class LiveServer: Sendable {
    let data: URL
    let process: ServerProcess
    var baseURL: URL { URL(string: "http://127.0.0.1:\(process.port)")! }

    init() throws {
        data = try ImportedMap.freshCopy("helsinki")
        process = try ServerProcess(dataDirectory: data)
    }

    private init(data: URL) throws {
        self.data = data
        process = try ServerProcess(dataDirectory: data)
    }

    /// Stops this server and starts another on the same data (a new port).
    func restarted() throws -> LiveServer {
        process.stop()
        return try LiveServer(data: data)
    }

    /// A client without a token.
    var client: CabAPIClient { CabAPIClient(baseURL: baseURL) }

    /// The road route between two points, as positions.
    func road(from a: Coordinate, to b: Coordinate) throws -> [Coordinate] {
        let answer = try process.request("GET", "/v1/route?from=\(a)&to=\(b)")
        let polyline = try (answer.jsonObject?["polyline"] as? String).orThrow("no route \(a) → \(b): \(answer.text)")
        return try Polyline.decode(polyline).orThrow("bad polyline")
    }

    /// A GET with a bearer token, as JSON.
    func get(_ path: String, token: String) throws -> [String: Any] {
        let answer = try process.request("GET", path, headers: ["Authorization": "Bearer \(token)"])
        return try answer.jsonObject.orThrow("GET \(path): \(answer.status) \(answer.text)")
    }
}

/// A test set-up that went wrong.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw HarnessError(description: message) }
        return self
    }
}

/// Uploads through the real client, recording each batch, when it went and what the server dropped; can play
/// offline.
final class RecordingTransport: LocationTransport {
    let client: CabAPIClient
    let clock: ManualClock
    private let state = Mutex<(uploads: [(at: Date, fixes: [ReportedFix])], dropped: [String: Int], offline: Bool)>(
        ([], [:], false))

    init(_ client: CabAPIClient, clock: ManualClock) {
        self.client = client
        self.clock = clock
    }

    var uploads: [(at: Date, fixes: [ReportedFix])] { state.withLock { $0.uploads } }
    /// Fixes the server answered but did not apply, by reason.
    var dropped: [String: Int] { state.withLock { $0.dropped } }
    var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        if offline { return .failed }
        do throws(ClientError) {
            let receipt = try await client.postLocations(fixes)
            state.withLock {
                $0.uploads.append((clock.date, fixes))
                $0.dropped.merge(receipt.dropped) { $0 + $1 }
            }
            return .accepted
        } catch {
            return .failed
        }
    }
}

/// A rider service that forwards to the real client but can lose the next booking's answer (the request
/// reached the server, the answer did not reach the phone), and can be pointed at a restarted server.
final class FlakyRiderService: RiderService {
    private let state: Mutex<(client: CabAPIClient, loseNextBookingAnswer: Bool)>

    init(_ client: CabAPIClient) { state = Mutex((client, false)) }

    var client: CabAPIClient { state.withLock { $0.client } }

    func pointAt(_ base: URL) {
        state.withLock { $0.client = CabAPIClient(baseURL: base, token: $0.client.token) }
    }

    func loseNextBookingAnswer() { state.withLock { $0.loseNextBookingAnswer = true } }

    func createRider(name: String) async throws(ClientError) -> AccountCredentials {
        try await client.createRider(name: name)
    }
    func places(matching query: String, near: Coordinate, limit: Int) async throws(ClientError) -> [Place] {
        try await client.places(matching: query, near: near, limit: limit)
    }
    func place(at point: Coordinate) async throws(ClientError) -> Place? { try await client.place(at: point) }
    func estimate(from pickup: Coordinate, to dropoff: Coordinate) async throws(ClientError) -> FareEstimate {
        try await client.estimate(from: pickup, to: dropoff)
    }
    func book(
        from pickup: Coordinate, to dropoff: Coordinate, pickupName: String?, dropoffName: String?,
        idempotencyKey: String
    ) async throws(ClientError) -> BookingSummary {
        let booking = try await client.book(
            from: pickup, to: dropoff, pickupName: pickupName, dropoffName: dropoffName, idempotencyKey: idempotencyKey)
        let lose = state.withLock { s in
            defer { s.loseNextBookingAnswer = false }
            return s.loseNextBookingAnswer
        }
        if lose { throw ClientError(.network, "The answer was lost on the way.") }
        return booking
    }
    func booking(id: String) async throws(ClientError) -> BookingSummary { try await client.booking(id: id) }
    func cancelBooking(id: String, reason: String?) async throws(ClientError) -> BookingSummary {
        try await client.cancelBooking(id: id, reason: reason)
    }
    func rate(booking id: String, stars: Int) async throws(ClientError) -> Int {
        try await client.rate(booking: id, stars: stars)
    }
    func nearbyCars(around point: Coordinate) async throws(ClientError) -> [NearbyCar] {
        try await client.nearbyCars(around: point)
    }
    func request(_ path: String, query: [String: String]) -> URLRequest { client.request(path, query: query) }
    /// The same instance, now with `token` (so the test's handle sees what the model uses).
    func authenticated(_ token: String) -> FlakyRiderService {
        state.withLock { $0.client = $0.client.authenticated(token) }
        return self
    }
}
