import CabAPI
import CabCore
import CabDispatch
import CabStore
import CabTestSupport
import CabTracking
import Dispatch
import Foundation
import Synchronization
import Testing

/// Single-fix ingest (`POST /v1/driver/locations`, `/osmand`) runs on the event-loop thread when everything it
/// needs is in memory, and is parked on the handler pool when something would wait: a token not in the cache,
/// a driver's first position (read from the store), a full history queue.
@Suite struct InlineIngestTests {
    static let locations = "http_requests_pooled_total{route=\"/v1/driver/locations\"}"

    @Test func aCachedTokenIsAnsweredWithoutThePool() throws {
        let f = try TrackingFixture()
        // First request: the token is not cached and the driver has no position yet; both read the store.
        #expect(try f.post([f.fix(60.17, 24.94, at: -2)], token: f.tokenA).jsonObject?["accepted"] as? Int == 1)
        #expect(try f.metric(Self.locations) == 1)
        let answer = try f.post([f.fix(60.1701, 24.94, at: -1)], token: f.tokenA)
        #expect(answer.status == 200)
        #expect(answer.jsonObject?["accepted"] as? Int == 1)
        #expect(try f.metric(Self.locations) == 1)  // answered inline
        #expect(f.tracking.fleet.position(of: f.driverA)?.coordinate.latitude == 60.1701)
        f.tracking.history.flush()
        #expect(
            try f.store.trail(
                of: f.driverA, from: f.clock.now().adding(milliseconds: -10_000), to: f.clock.now(),
                limit: 10
            ).count == 2)
    }

    @Test func aTokenNotInTheCacheIsParkedAndAnsweredAsBefore() throws {
        let f = try TrackingFixture()
        #expect(try f.post([f.fix(60.17, 24.94)], token: "not-a-token").status == 401)
        #expect(try f.post([f.fix(60.17, 24.94)], token: f.riderToken).status == 403)
        #expect(try f.metric(Self.locations) == 2)  // both looked up on the pool
        // A cached rider token is refused inline, with the same problem.
        let again = try f.post([f.fix(60.17, 24.94)], token: f.riderToken)
        #expect(again.status == 403)
        #expect(again.jsonObject?["code"] as? String == "forbidden")
        #expect(try f.metric(Self.locations) == 2)
        // Driver B's token is cached by a trail read, but B's first position still reads the store: parked.
        #expect(try f.request("GET", "/v1/drivers/\(f.driverB)/location", token: f.tokenB).status == 404)
        #expect(try f.post([f.fix(60.18, 24.95, at: -1)], token: f.tokenB).jsonObject?["accepted"] as? Int == 1)
        #expect(try f.metric(Self.locations) == 3)
        #expect(f.tracking.fleet.position(of: f.driverB) != nil)
        #expect(f.tracking.fleet.position(of: f.driverA) == nil)
    }

    @Test func osmAndWithAKnownDeviceRunsInline() throws {
        let f = try TrackingFixture()
        let device = try f.request("POST", "/v1/driver/devices", token: f.tokenA)
        let id = try #require(device.jsonObject?["device_id"] as? String)
        let series = "http_requests_pooled_total{route=\"/osmand\"}"
        func report(_ lat: Double, _ seconds: Int) throws -> Int {
            let time = f.clock.now().millisecondsSinceEpoch / 1000 + Int64(seconds)
            return try f.request("POST", "/osmand?id=\(id)&lat=\(lat)&lon=24.94&timestamp=\(time)").status
        }
        #expect(try report(60.17, -2) == 200)
        #expect(try f.metric(series) == 1)
        #expect(try report(60.1701, -1) == 200)
        #expect(try f.metric(series) == 1)
        #expect(f.tracking.fleet.position(of: f.driverA)?.coordinate.latitude == 60.1701)
    }

    /// With one epoll thread and the history store stalled, a request that finds the history queue full waits
    /// on the pool; `/healthz` and further requests are answered meanwhile, and its fix is stored once the
    /// store moves again.
    @Test func aFullHistoryQueueParksTheRequestAndTheFixIsStoredLater() throws {
        let stall = StallingHistory()
        let configuration = TrackingConfiguration(
            ingest: IngestConfiguration(rateLimitBurst: 1_000), tickInterval: nil, heartbeatInterval: nil,
            historyQueueCapacity: 1, historyBatchSize: 1, historyLingerMilliseconds: 0)
        let f = try TrackingFixture(
            configuration: configuration,
            history: {
                stall.store = $0
                return stall
            }, workerThreads: 1)
        defer { stall.open() }
        #expect(try f.post([f.fix(60.17, 24.94, at: -4)], token: f.tokenA).status == 200)
        #expect(eventually { stall.waiting.load(ordering: .relaxed) == 1 })  // the writer holds fix 1
        // Fix 2 fills the queue (capacity 1), inline.
        #expect(try f.post([f.fix(60.1701, 24.94, at: -3)], token: f.tokenA).status == 200)
        #expect(try f.metric(Self.locations) == 1)
        // Fix 3 finds no room: parked on the pool, where it waits for the writer.
        let third = try HTTPTestConnection(port: f.port)
        try third.sendRequest(
            "POST", "/v1/driver/locations",
            headers: ["Authorization": "Bearer \(f.tokenA)", "Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: ["fixes": [f.fix(60.1702, 24.94, at: -2)]])))
        #expect(eventually { (try? f.metric(Self.locations)) == 2 && f.server.handlerLoad.running == 1 })
        let started = Date()
        #expect(try f.request("GET", "/healthz").status == 200)
        #expect(Date().timeIntervalSince(started) < 1.0)
        #expect(f.server.handlerLoad.running == 1)  // fix 3, still waiting for room
        // The live position moves (as on the pool before); only the answer waits for room in the history. The
        // handler counts as running a moment before it reaches the fleet, so the position is waited for.
        #expect(eventually { f.tracking.fleet.position(of: f.driverA)?.coordinate.latitude == 60.1702 })
        #expect(f.server.handlerLoad.running == 1)  // and the answer still waits
        stall.open()
        let answer = try third.readResponse()
        #expect(answer.status == 200)
        #expect(answer.jsonObject?["accepted"] as? Int == 1)
        f.tracking.history.flush()
        let trail = try f.store.trail(
            of: f.driverA, from: f.clock.now().adding(milliseconds: -10_000), to: f.clock.now(), limit: 10)
        #expect(trail.map { $0.coordinate.latitude } == [60.17, 60.1701, 60.1702])
    }
}

/// The store as a trail repository whose appends wait until `open()`, counting those waiting.
final class StallingHistory: LocationHistoryRepository, @unchecked Sendable {
    // @unchecked Sendable: `store` is set once before the tracking service starts; the rest is Sendable.
    var store: SQLiteStore?
    let waiting = Atomic<Int>(0)
    private let gate = Mutex(false)
    private let opened = DispatchSemaphore(value: 0)

    func open() {
        let first = gate.withLock { open in
            defer { open = true }
            return !open
        }
        if first { opened.signal() }
    }

    func append(_ records: [DriverLocationRecord]) throws -> Int {
        if !gate.withLock({ $0 }) {
            waiting.add(1, ordering: .relaxed)
            opened.wait()
            opened.signal()  // let any later append through
        }
        // Set in the fixture's init before any request.
        return try store!.append(records)
    }

    func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord] {
        // Set in the fixture's init before any request.
        try store!.trail(of: driver, from: from, to: to, limit: limit)
    }

    func newestLocation(of driver: DriverID) throws -> DriverLocationRecord? {
        // Set in the fixture's init before any request.
        try store!.newestLocation(of: driver)
    }
}
