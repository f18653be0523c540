import CabAPI
import CabClient
import CabCore
import CabGeo
import CabStore
import CabTestSupport
import Foundation
import Synchronization
import Testing

/// Tracking against the built `cab serve`: CabClient's `LocationReporter` uploads, and history survives a clean
/// restart.
@Suite struct TrackingServeTests {
    @Test func reporterUploadsAndHistorySurvivesACleanRestart() async throws {
        let data = try ImportedMap.freshCopy("monaco")
        let driver = DriverID.random()
        let token = "dr_e2e_" + TokenAuthority.hex(try TokenAuthority.randomBytes(12))
        do {
            let store = try SQLiteStore(path: data.appendingPathComponent("cab.sqlite").path)
            try store.createDriver(
                Driver(id: driver, name: "E", vehicle: "car", plate: "E-1", createdAt: .now()),
                tokenHash: TokenAuthority.tokenHash(token))
            store.close()
        }
        var server = try ServerProcess(dataDirectory: data)
        let clock = Mutex(Date())
        let reporter = try LocationReporter(
            configuration: LocationReporterConfiguration(minIntervalSeconds: 20),
            transport: CabAPIClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, token: token),
            now: { clock.withLock { $0 } })
        let start = Date().addingTimeInterval(-120)
        var points: [Coordinate] = []
        for step in 0..<3 {
            let point = Coordinate(latitude: 43.7350 + Double(step) * 0.001, longitude: 7.4200)
            points.append(point)
            try await reporter.record(
                LocationSample(
                    coordinate: point, time: start.addingTimeInterval(Double(step) * 30), accuracyMeters: 5,
                    speedMetersPerSecond: 4, headingDegrees: 0))
            clock.withLock { $0 = $0.addingTimeInterval(30) }  // past the 20 s throttle: each sample goes out
            try await reporter.poll()
        }
        #expect(await reporter.snapshot.queue.isEmpty)
        let auth = ["Authorization": "Bearer \(token)"]
        let location = try server.request("GET", "/v1/drivers/\(driver)/location", headers: auth)
        #expect(location.status == 200)
        #expect((location.jsonObject?["position"] as? [String: Double])?["lat"] == points.last?.latitude)

        #expect(server.stop() == 0)  // SIGTERM: the history queue is written before the store closes
        server = try ServerProcess(dataDirectory: data)
        let from = RFC3339.format(Instant(millisecondsSinceEpoch: Int64(start.timeIntervalSince1970 * 1000) - 1000))
        let trail = try server.request("GET", "/v1/drivers/\(driver)/trail?from=\(from)", headers: auth)
        #expect(trail.status == 200)
        let coordinates = (trail.jsonObject?["geometry"] as? [String: Any])?["coordinates"] as? [[Double]]
        #expect(coordinates == points.map { [$0.longitude, $0.latitude] })
        #expect(server.stop() == 0)
    }
}
