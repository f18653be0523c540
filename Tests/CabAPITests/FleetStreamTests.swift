import CabAPI
import CabClient
import CabCore
import CabGeo
import CabTestSupport
import Foundation
import Testing

/// `GET /v1/fleet/stream` over HTTP: delivery, coalescing, `Last-Event-ID`, bounding boxes, heartbeats, and a
/// client that never reads.
@Suite struct FleetStreamTests {
    /// One parsed SSE event.
    struct Event {
        var name: String?
        var id: UInt64?
        var data: [String: Any]
    }

    /// An open stream and the events read so far.
    final class StreamReader {
        let connection: HTTPTestConnection
        let head: (status: Int, headers: [String: String])
        private var text = ""
        private var parser = ServerSentEventParser()
        /// The events parsed so far.
        private(set) var events: [Event] = []

        init(_ f: TrackingFixture, query: String = "", headers: [String: String] = [:]) throws {
            connection = try HTTPTestConnection(port: f.port)
            try connection.sendRequest(
                "GET", "/v1/fleet/stream?access_token=\(f.dispatcherToken)\(query)", headers: headers)
            head = try connection.readHead()
        }

        /// Reads chunks until `done` holds for the events parsed so far, or 50 chunks (each read may wait up to 10 s).
        func read(until done: ([Event], String) -> Bool) throws -> [Event] {
            for _ in 0..<50 {
                if done(events, text) { break }
                guard let chunk = try connection.readChunk() else { break }
                text += String(decoding: chunk, as: UTF8.self)
                events += parser.feed(chunk).map { event in
                    Event(
                        name: event.type, id: event.lastEventID.flatMap { UInt64($0) },
                        data: (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any] ?? [:])
                }
            }
            return events
        }
    }

    static func positions(_ events: [Event], of driver: DriverID) -> [Event] {
        events.filter { $0.name == "position" && $0.data["driver_id"] as? String == driver.rawValue }
    }

    @Test func deliversCoalescedPositionsPerTick() throws {
        let f = try TrackingFixture()
        let stream = try StreamReader(f)
        #expect(stream.head.status == 200)
        #expect(stream.head.headers["content-type"] == "text/event-stream")
        for (i, lat) in [60.170, 60.171, 60.172].enumerated() {
            #expect(try f.post([f.fix(lat, 24.94, at: Double(i) * 10 - 30)], token: f.tokenA).status == 200)
        }
        _ = try f.post([f.fix(60.2, 24.9, at: -1)], token: f.tokenB)
        f.tracking.tick()
        let events = try stream.read { events, _ in !Self.positions(events, of: f.driverB).isEmpty }
        let a = Self.positions(events, of: f.driverA)
        #expect(a.count == 1)  // three positions in one tick arrive as the newest
        #expect(a.first?.data["lat"] as? Double == 60.172)
        #expect(a.first?.data["status"] as? String == "available")
        #expect(a.first?.data["time"] as? Int64 == f.clock.now().millisecondsSinceEpoch)
        #expect(Self.positions(events, of: f.driverB).first?.data["vehicle_type"] as? String == "large")
        #expect(f.accessLog.lines.allSatisfy { !$0.contains(f.dispatcherToken) })
    }

    @Test func resumesAfterLastEventID() throws {
        let f = try TrackingFixture()
        let first = try StreamReader(f)
        _ = try f.post([f.fix(60.170, 24.94, at: -30)], token: f.tokenA)
        f.tracking.tick()
        let seen = try #require(
            Self.positions(try first.read { events, _ in !events.isEmpty }, of: f.driverA).first?.id)

        _ = try f.post([f.fix(60.2, 24.9, at: -20)], token: f.tokenB)  // published while the client is away
        f.tracking.tick()
        _ = try f.post([f.fix(60.171, 24.94, at: -10)], token: f.tokenA)
        f.tracking.tick()
        let resumed = try StreamReader(f, headers: ["Last-Event-ID": String(seen)])
        let events = try resumed.read { events, _ in events.count >= 2 }
        #expect(events.map(\.id) == [seen + 1, seen + 2])
        #expect(events.first?.data["driver_id"] as? String == f.driverB.rawValue)
        #expect(events.last?.data["lat"] as? Double == 60.171)
    }

    @Test func aBoundingBoxFiltersAndABadOneIsA400() throws {
        let f = try TrackingFixture()
        let stream = try StreamReader(f, query: "&bbox=24.93,60.16,24.95,60.18")
        _ = try f.post([f.fix(60.2, 24.9, at: -20)], token: f.tokenB)  // outside
        _ = try f.post([f.fix(60.17, 24.94, at: -10)], token: f.tokenA)  // inside
        f.tracking.tick()
        let events = try stream.read { events, _ in !events.isEmpty }
        #expect(events.compactMap { $0.data["driver_id"] as? String } == [f.driverA.rawValue])
        let bad = try HTTPTestConnection(port: f.port)
        try bad.sendRequest("GET", "/v1/fleet/stream?access_token=\(f.dispatcherToken)&bbox=1,2,3")
        #expect(try bad.readResponse().status == 400)
    }

    @Test func onlyDispatchersMayStream() throws {
        let f = try TrackingFixture()
        #expect(try f.request("GET", "/v1/fleet/stream").status == 401)
        #expect(try f.request("GET", "/v1/fleet/stream?access_token=\(f.tokenA)").status == 403)
    }

    @Test func sendsHeartbeats() throws {
        let f = try TrackingFixture()
        let stream = try StreamReader(f)
        _ = try stream.read { _, text in text.contains(": connected") }
        f.tracking.sendHeartbeats()
        _ = try stream.read { _, text in text.contains(": heartbeat") }
        #expect(try stream.read { _, _ in true }.isEmpty)
    }

    @Test func aClientThatNeverReadsLosesOldEventsNotMemory() throws {
        let capacity = 64
        let f = try TrackingFixture(configuration: TrackingFixture.configuration(streamBufferCapacity: capacity))
        let stream = try StreamReader(f)  // reads the head, then never again
        let drivers = (0..<500).map { _ in DriverID.random() }
        var rounds = 0
        while f.tracking.streamStatistics.dropped == 0 && rounds < 5_000 {
            rounds += 1
            for (i, driver) in drivers.enumerated() {
                f.tracking.streams.publish(
                    driver,
                    at: .init(
                        coordinate: Coordinate(latitude: 60 + Double(i) * 1e-4, longitude: 24 + Double(rounds) * 1e-5),
                        timeMilliseconds: f.clock.now().millisecondsSinceEpoch))
            }
            f.tracking.tick()
        }
        let statistics = f.tracking.streamStatistics
        #expect(statistics.clients == 1)
        #expect(statistics.dropped > 0)
        #expect(statistics.buffered <= capacity)
        #expect(try f.metric("tracking_stream_events_dropped_total") > 0)
        withExtendedLifetime(stream) {}
    }
}
