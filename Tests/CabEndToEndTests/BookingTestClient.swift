import CabTestSupport
import Foundation
import Testing

/// A real `cab serve` on a fresh copy of the imported Helsinki map, with helpers for the booking tests:
/// accounts, bookings, and counting what the store holds (through a dispatcher made with `cab admin`). With
/// `CAB_TEST_STORE=postgres` (`make test`'s second pass) the server and `cab admin` keep the data in a fresh
/// database on the shared PostgreSQL server (`--postgres URL`), else in the data directory's SQLite file.
final class BookingTestClient: @unchecked Sendable {
    // @unchecked Sendable: `server` is replaced only by `crashAndRestart()`, called by the test while no request
    // is in flight; everything else is immutable.
    /// Two routable points in central Helsinki (about 1 km apart by road).
    static let railwayStation: [String: Double] = ["lat": 60.1699, "lon": 24.9384]
    static let esplanadi: [String: Double] = ["lat": 60.1655, "lon": 24.9466]
    static let kamppi: [String: Double] = ["lat": 60.1690, "lon": 24.9320]

    let data: URL
    /// `--postgres URL` for every `cab` this client runs, or nothing (SQLite).
    let storeArguments: [String]
    private(set) var server: ServerProcess
    /// A dispatcher's token, made with `cab admin create-dispatcher` before the server started.
    let dispatcherToken: String

    init(extraArguments: [String] = []) throws {
        data = try ImportedMap.freshCopy("helsinki")
        storeArguments = SharedPostgres.selected ? ["--postgres", try SharedPostgres.freshDatabase()] : []
        let admin = try CabProcess.run(
            ["admin", "create-dispatcher", "--data", data.path] + storeArguments + ["Test Dispatcher"])
        guard admin.status == 0 else {
            throw SetupError(description: "cab admin failed (\(admin.status)): \(admin.standardError)")
        }
        dispatcherToken = admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        self.extraArguments = extraArguments + storeArguments
        server = try ServerProcess(dataDirectory: data, extraArguments: self.extraArguments)
    }

    /// The arguments every server of this client starts with (the test's, then the store's).
    private let extraArguments: [String]

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: data)
    }

    /// Kills the server with SIGKILL (a crash) and starts a new one on the same data directory.
    func crashAndRestart() throws {
        server.kill()
        server = try ServerProcess(dataDirectory: data, extraArguments: extraArguments)
    }

    /// Starts a new server on the same data directory (after `server.stop()`).
    func restart() throws {
        server = try ServerProcess(dataDirectory: data, extraArguments: extraArguments)
    }

    /// Sends a request with an optional bearer token and JSON body.
    func send(
        _ method: String, _ path: String, token: String? = nil, json: Any? = nil, headers: [String: String] = [:]
    ) throws -> HTTPTestResponse {
        var h = headers
        if let token { h["Authorization"] = "Bearer \(token)" }
        if let json { return try server.request(method, path, json: json, headers: h) }
        return try server.request(method, path, headers: h)
    }

    /// A new rider's token.
    func newRider(_ name: String = "Rider") throws -> String {
        let response = try send("POST", "/v1/riders", json: ["name": name])
        #expect(response.status == 201, "\(response.text)")
        return try #require(response.jsonObject?["token"] as? String)
    }

    /// Books a ride for the rider with `token`; returns the response.
    func book(
        _ token: String, key: String? = UUID().uuidString, from pickup: [String: Double] = railwayStation,
        to dropoff: [String: Double] = esplanadi
    ) throws -> HTTPTestResponse {
        try send(
            "POST", "/v1/bookings", token: token, json: ["pickup": pickup, "dropoff": dropoff],
            headers: key.map { ["Idempotency-Key": $0] } ?? [:])
    }

    /// Every booking id in the store, as the dispatcher sees them (all pages).
    func allBookingIDs() throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let path = "/v1/bookings?limit=100" + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try send("GET", path, token: dispatcherToken)
            #expect(response.status == 200, "\(response.text)")
            let json = try #require(response.jsonObject)
            ids += (json["bookings"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = json["next_cursor"] as? String
        } while cursor != nil
        return ids
    }
}

extension HTTPTestResponse {
    /// The problem's `detail`, when this is an `application/problem+json` answer.
    var problemDetail: String? {
        guard headers["content-type"] == "application/problem+json" else { return nil }
        return jsonObject?["detail"] as? String
    }
}

/// A test fixture could not be set up.
struct SetupError: Error, CustomStringConvertible {
    var description: String
}
