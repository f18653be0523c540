import CabGeo
import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabClient

/// A transport that records every batch and answers from a script (then `.accepted`).
final class FakeTransport: LocationTransport {
    private let state = Mutex<(batches: [[ReportedFix]], script: [UploadResult], offline: Bool)>(([], [], false))
    var batches: [[ReportedFix]] { state.withLock { $0.batches } }
    var sequencesSent: [[Int64]] { batches.map { $0.map(\.sequence) } }
    func script(_ results: [UploadResult]) { state.withLock { $0.script = results } }
    func setOffline(_ offline: Bool) { state.withLock { $0.offline = offline } }
    func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        state.withLock {
            $0.batches.append(fixes)
            if $0.offline { return .failed }
            return $0.script.isEmpty ? .accepted : $0.script.removeFirst()
        }
    }
}

@Suite struct LocationReporterTests {
    let clock = ManualClock()
    let transport = FakeTransport()

    /// A sample `metersNorth` of a point in Helsinki, taken now.
    func sample(_ metersNorth: Double, heading: Double? = nil, speed: Double? = nil) -> LocationSample {
        LocationSample(
            coordinate: Coordinate(latitude: 60.17 + metersNorth / 111_195, longitude: 24.94), time: clock.date,
            accuracyMeters: 5, speedMetersPerSecond: speed, headingDegrees: heading)
    }

    func reporter(_ configuration: LocationReporterConfiguration = .init(), store: (any ReporterStore)? = nil)
        throws -> LocationReporter
    {
        let clock = self.clock
        return try LocationReporter(
            configuration: configuration, transport: transport, store: store,
            now: { clock.date })
    }

    @Test func theFirstFixGoesAtOnceAndCloserThan20MetresIsSkipped() async throws {
        let reporter = try reporter()
        try await reporter.record(sample(0))
        #expect(transport.sequencesSent == [[1]])
        for meters in [5.0, 12, 19] {
            clock.advance(15)
            try await reporter.record(sample(meters))
        }
        #expect(transport.sequencesSent == [[1]])
        #expect(await reporter.snapshot.queue.isEmpty)
        clock.advance(14)
        try await reporter.record(sample(25))
        #expect(transport.sequencesSent == [[1], [2]])
    }

    @Test func sendsAtMostOnceIn20SecondsAndCatchesUpWhenTheWindowEnds() async throws {
        let reporter = try reporter()
        try await reporter.record(sample(0))
        clock.advance(5)
        try await reporter.record(sample(50))
        clock.advance(5)
        try await reporter.record(sample(100))
        #expect(transport.sequencesSent == [[1]])
        #expect(await reporter.nextWakeDate == clock.date.addingTimeInterval(10))
        clock.advance(9)
        try await reporter.poll()
        #expect(transport.sequencesSent == [[1]])
        clock.advance(1)
        try await reporter.poll()
        #expect(transport.sequencesSent == [[1], [2, 3]])
        #expect(await reporter.snapshot.lastUploaded?.sequence == 3)
    }

    @Test func aSharpTurnIsSentAtOnceEvenWithinTheWindowAndDistance() async throws {
        let reporter = try reporter()
        try await reporter.record(sample(0, heading: 0, speed: 8))
        clock.advance(3)
        try await reporter.record(sample(8, heading: 30, speed: 8))  // a gentle bend: skipped
        #expect(await reporter.snapshot.queue.isEmpty)
        clock.advance(3)
        try await reporter.record(sample(12, heading: 95, speed: 8))
        #expect(transport.sequencesSent == [[1], [2]])
        clock.advance(3)
        try await reporter.record(sample(14, heading: 180, speed: 0.3))  // standing still: heading is noise
        #expect(transport.sequencesSent == [[1], [2]])
    }

    @Test func aStandingDriverStillReportsAfterTheSilenceLimit() async throws {
        let reporter = try reporter(.init(maxSilenceSeconds: 60))
        try await reporter.record(sample(0))
        clock.advance(59)
        try await reporter.record(sample(1))
        #expect(transport.batches.count == 1)
        clock.advance(1)
        try await reporter.record(sample(2))
        #expect(transport.sequencesSent == [[1], [2]])
    }

    @Test func theOfflineQueueIsBoundedAndDrainsOldestFirstInBatches() async throws {
        let reporter = try reporter(.init(queueCapacity: 250, batchSize: 100))
        transport.setOffline(true)
        for i in 0..<260 {
            clock.advance(30)
            try await reporter.record(sample(Double(i) * 30))
            try await reporter.poll()
        }
        let snapshot = await reporter.snapshot
        #expect(snapshot.queue.count == 250)
        #expect(snapshot.droppedFromQueue == 10)
        #expect(snapshot.queue.first?.sequence == 11)
        let attemptsWhileOffline = transport.batches.count
        transport.setOffline(false)
        try await reporter.networkBecameAvailable()
        let sent = transport.sequencesSent.dropFirst(attemptsWhileOffline)
        #expect(sent.map(\.count) == [100, 100, 50])
        #expect(sent.flatMap { $0 } == Array(11...260))
        #expect(await reporter.snapshot.queue.isEmpty)
    }

    @Test func backsOffExponentiallyAndResetsAfterASuccess() async throws {
        let reporter = try reporter(.init(initialBackoffSeconds: 2, maxBackoffSeconds: 10))
        transport.script([.failed, .failed, .failed, .failed])
        let start = clock.date
        try await reporter.record(sample(0))
        var delays: [Double] = []
        for _ in 0..<4 {
            let retryAt = try #require(await reporter.retryAt)
            delays.append(retryAt.timeIntervalSince(clock.date))
            clock.advance(delays.last! - 0.5)
            try await reporter.poll()  // too early: nothing is sent
            clock.advance(0.5)
            try await reporter.poll()
        }
        #expect(delays == [2, 4, 8, 10])
        #expect(transport.batches.count == 5)
        #expect(await reporter.retryAt == nil)
        #expect(await reporter.snapshot.lastUploaded?.sequence == 1)
        #expect(clock.date.timeIntervalSince(start) == 24)
    }

    @Test func rateLimitedUploadsWaitForRetryAfter() async throws {
        let reporter = try reporter()
        transport.script([.rateLimited(retryAfterSeconds: 7)])
        try await reporter.record(sample(0))
        #expect(await reporter.retryAt == clock.date.addingTimeInterval(7))
        clock.advance(7)
        try await reporter.poll()
        #expect(transport.sequencesSent == [[1], [1]])
    }

    @Test func aRejectedBatchIsDroppedSoItCannotJamTheQueue() async throws {
        let reporter = try reporter()
        transport.script([.rejected])
        try await reporter.record(sample(0))
        #expect(await reporter.snapshot.queue.isEmpty)
        #expect(await reporter.snapshot.lastUploaded == nil)
    }

    @Test func theQueueAndLastUploadSurviveARestart() async throws {
        let folder = try TestData.temporaryDirectory("reporter")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileReporterStore(url: folder.appendingPathComponent("reporter.json"))
        do {
            let first = try reporter(store: store)
            try await first.record(sample(0))  // uploaded
            transport.setOffline(true)
            clock.advance(30)
            try await first.record(sample(100))
            clock.advance(30)
            try await first.record(sample(200))
        }
        transport.setOffline(false)
        let second = try reporter(store: store)
        let restored = await second.snapshot
        #expect(restored.lastUploaded?.sequence == 1)
        #expect(restored.queue.map(\.sequence) == [2, 3])
        clock.advance(1)
        try await second.record(sample(205))  // within 20 m of the last kept fix: skipped; the queue goes out
        #expect(transport.sequencesSent.last == [2, 3])
        clock.advance(30)
        try await second.record(sample(300))
        #expect(transport.sequencesSent.last == [4])
        let third = try reporter(store: store)
        #expect(await third.snapshot.queue.isEmpty)
        #expect(await third.snapshot.nextSequence == 5)
    }
}

@Suite struct ReportedFixTests {
    @Test func encodesTheWireShapeWithAnRFC3339Time() throws {
        let fix = ReportedFix(
            LocationSample(
                coordinate: Coordinate(latitude: 60.17, longitude: 24.94),
                time: Date(timeIntervalSince1970: 1_750_000_000.25), accuracyMeters: 4.5, speedMetersPerSecond: 9,
                headingDegrees: 180),
            sequence: 42)
        let data = try JSONEncoder().encode(["fixes": [fix]])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]])
        let wire = try #require(object["fixes"]?.first)
        #expect(Set(wire.keys) == ["lat", "lon", "time", "accuracy", "speed", "heading", "seq"])
        #expect(wire["time"] as? String == "2025-06-15T15:06:40.250Z")
        #expect(wire["seq"] as? Int == 42)
        #expect(try JSONDecoder().decode(ReportedFix.self, from: try JSONEncoder().encode(fix)) == fix)
    }
}
