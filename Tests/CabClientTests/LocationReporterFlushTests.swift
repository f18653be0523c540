import CabTestSupport
import CabGeo
import Foundation
import Synchronization
import Testing

@testable import CabClient

/// A transport whose uploads wait until the test opens the gate (to catch a flush racing an upload).
final class GatedTransport: LocationTransport {
    private let state = Mutex<(batches: [[Int64]], waiting: [CheckedContinuation<Void, Never>], open: Bool)>(
        ([], [], false))
    var sequencesSent: [[Int64]] { state.withLock { $0.batches } }
    var waitingUploads: Int { state.withLock { $0.waiting.count } }
    func open() {
        let waiting = state.withLock { s in
            s.open = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for w in waiting { w.resume() }
    }
    func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let go = state.withLock { s -> Bool in
                s.batches.append(fixes.map(\.sequence))
                if !s.open { s.waiting.append(c) }
                return s.open
            }
            if go { c.resume() }
        }
        return .accepted
    }
}

@Suite struct LocationReporterFlushTests {
    let clock = ManualClock()
    let transport = FakeTransport()

    func sample(_ metersNorth: Double) -> LocationSample {
        LocationSample(
            coordinate: Coordinate(latitude: 60.17 + metersNorth / 111_195, longitude: 24.94), time: clock.date,
            accuracyMeters: 5)
    }

    func reporter(_ transport: any LocationTransport) throws -> LocationReporter {
        let clock = self.clock
        return try LocationReporter(transport: transport, now: { clock.date })
    }

    @Test func flushSendsTheQueueAtOnceOldestFirstInsideTheThrottleWindow() async throws {
        let reporter = try reporter(transport)
        for i in 0..<5 {
            try await reporter.record(sample(Double(i) * 50))
            clock.advance(3)
        }
        #expect(transport.sequencesSent == [[1]])  // the rest wait for the 20 s window
        try await reporter.flush()
        #expect(transport.sequencesSent == [[1], [2, 3, 4, 5]])
        #expect(await reporter.snapshot.queue.isEmpty)
    }

    @Test func flushAlsoSendsTheLastSampleTheDistanceFilterSkipped() async throws {
        let reporter = try reporter(transport)
        try await reporter.record(sample(0))
        clock.advance(2)
        try await reporter.record(sample(15))  // under 20 m: skipped, but it is where the car stopped
        #expect(await reporter.snapshot.queue.isEmpty)
        try await reporter.flush()
        #expect(transport.batches.last?.map(\.sample.coordinate) == [sample(15).coordinate])
    }

    @Test func flushIgnoresTheBackOffAndThrowsInWordsWhenTheNetworkIsDown() async throws {
        let reporter = try reporter(transport)
        transport.setOffline(true)
        try await reporter.record(sample(0))
        clock.advance(1)
        try await reporter.record(sample(100))
        #expect(await reporter.retryAt != nil)
        await #expect(throws: ClientError.self) { try await reporter.flush() }
        #expect(await reporter.snapshot.queue.map(\.sequence) == [1, 2])  // nothing lost
        transport.setOffline(false)
        try await reporter.flush()  // at once, though the back-off still runs
        #expect(transport.sequencesSent.last == [1, 2])
    }

    @Test func flushWaitsForTheUploadInFlightThenSendsTheRest() async throws {
        let gated = GatedTransport()
        let reporter = try reporter(gated)
        let clock = self.clock
        let first = Task {
            try await reporter.record(
                LocationSample(
                    coordinate: Coordinate(latitude: 60.17, longitude: 24.94), time: clock.date, accuracyMeters: 5))
        }
        while gated.waitingUploads == 0 { await Task.yield() }
        clock.advance(2)
        try await reporter.record(sample(80))  // queued behind the upload in flight
        let flush = Task { try await reporter.flush() }
        await Task.yield()
        gated.open()
        try await first.value
        try await flush.value
        #expect(gated.sequencesSent == [[1], [2]])
        #expect(await reporter.snapshot.queue.isEmpty)
    }
}
