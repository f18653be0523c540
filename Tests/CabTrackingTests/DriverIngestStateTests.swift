import CabGeo
import Testing

@testable import CabTracking

/// A fix `metersNorth` north of a point in Helsinki at `second` seconds after t0.
func fix(_ second: Int64, metersNorth: Double = 0, accuracy: Double = 5, seq: Int64? = nil) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: 60.17 + metersNorth / 111_195, longitude: 24.94),
        timeMilliseconds: t0 + second * 1000, accuracyMeters: accuracy, sequence: seq)
}

let t0: Int64 = 1_750_000_000_000

@Suite struct DriverIngestStateTests {
    let rules = IngestConfiguration()

    @Test func acceptsAnOrderedBatchAndReportsTheNewestAsLatest() {
        var state = DriverIngestState()
        let outcome = state.ingest(
            [fix(2, metersNorth: 20), fix(1), fix(3, metersNorth: 40)], now: t0 + 4000,
            configuration: rules)
        #expect(outcome.accepted.map(\.timeMilliseconds) == [t0 + 1000, t0 + 2000, t0 + 3000])
        #expect(outcome.latest == fix(3, metersNorth: 40))
        #expect(outcome.dropped.total == 0)
        #expect(outcome.retryAfterSeconds == nil)
    }

    @Test func dropsFixesOlderThanTheNewestApplied() {
        var state = DriverIngestState()
        _ = state.ingest([fix(10)], now: t0 + 10_000, configuration: rules)
        let outcome = state.ingest([fix(5, metersNorth: 10)], now: t0 + 11_000, configuration: rules)
        #expect(outcome.accepted.isEmpty)
        #expect(outcome.latest == nil)
        #expect(outcome.dropped[.outOfOrder] == 1)
        #expect(state.newestAppliedTimeMilliseconds == t0 + 10_000)
    }

    @Test func dropsFixesFromTheFutureBeyondTheTolerance() {
        var state = DriverIngestState()
        let outcome = state.ingest([fix(4), fix(30, metersNorth: 10)], now: t0, configuration: rules)
        #expect(outcome.accepted == [fix(4)])  // 4 s ahead is within the 5 s tolerance
        #expect(outcome.dropped[.future] == 1)
    }

    @Test func dropsInaccurateFixes() {
        var state = DriverIngestState()
        let outcome = state.ingest(
            [fix(1, accuracy: 250), fix(2, accuracy: 40)], now: t0 + 3000,
            configuration: rules)
        #expect(outcome.accepted == [fix(2, accuracy: 40)])
        #expect(outcome.dropped[.inaccurate] == 1)
    }

    @Test func dropsAFixImplyingAnImpossibleSpeedAndKeepsTheNextPlausibleOne() {
        var state = DriverIngestState()
        // 1 km in 2 s is 500 m/s; 60 m in 3 s from the first fix is 20 m/s.
        let outcome = state.ingest(
            [fix(1), fix(3, metersNorth: 1000), fix(4, metersNorth: 60)], now: t0 + 5000,
            configuration: rules)
        #expect(outcome.accepted.map(\.timeMilliseconds) == [t0 + 1000, t0 + 4000])
        #expect(outcome.dropped[.impossibleSpeed] == 1)
    }

    @Test func theSpeedLimitIsConfigurable() {
        var state = DriverIngestState()
        let slow = IngestConfiguration(maxSpeedMetersPerSecond: 10)
        let outcome = state.ingest([fix(1), fix(4, metersNorth: 60)], now: t0 + 5000, configuration: slow)
        #expect(outcome.dropped[.impossibleSpeed] == 1)
    }

    @Test func aRetriedBatchCountsAsDuplicatesAndChangesNothing() {
        var state = DriverIngestState()
        let batch = [fix(1), fix(2, metersNorth: 10), fix(3, metersNorth: 20)]
        let first = state.ingest(batch, now: t0 + 4000, configuration: rules)
        #expect(first.accepted.count == 3)
        let retry = state.ingest(batch, now: t0 + 6000, configuration: rules)
        #expect(retry.accepted.isEmpty)
        #expect(retry.latest == nil)
        #expect(retry.dropped[.duplicate] == 3)
        #expect(retry.dropped.total == 3)
    }

    @Test func aRetriedSingleFixIsADuplicateAndSameTimeInOneBatchToo() {
        var state = DriverIngestState()
        _ = state.ingest([fix(1)], now: t0 + 2000, configuration: rules)
        let outcome = state.ingest(
            [fix(1), fix(2, metersNorth: 5), fix(2, metersNorth: 6)], now: t0 + 3000,
            configuration: rules)
        #expect(outcome.accepted == [fix(2, metersNorth: 5)])
        #expect(outcome.dropped[.duplicate] == 2)
    }

    @Test func dropsInvalidCoordinates() {
        var state = DriverIngestState()
        var bad = fix(1)
        bad.coordinate.latitude = .nan
        var farOff = fix(2)
        farOff.coordinate.longitude = 200
        let outcome = state.ingest([bad, farOff], now: t0 + 3000, configuration: rules)
        #expect(outcome.dropped[.invalid] == 2)
        #expect(state.newestAppliedTimeMilliseconds == nil)
    }

    @Test func theRateLimitRefusesAWholeBatchWithRetryAfterAndRefills() {
        var state = DriverIngestState()
        let rules = IngestConfiguration(rateLimitBurst: 2, rateLimitBatchesPerSecond: 0.25)
        #expect(state.ingest([fix(1)], now: t0 + 1000, configuration: rules).retryAfterSeconds == nil)
        #expect(state.ingest([fix(2)], now: t0 + 1000, configuration: rules).retryAfterSeconds == nil)
        let refused = state.ingest([fix(3), fix(4)], now: t0 + 1000, configuration: rules)
        #expect(refused.retryAfterSeconds == 4)  // one token takes 4 s at 0.25 per second
        #expect(refused.dropped[.rateLimited] == 2)
        #expect(refused.accepted.isEmpty)
        let halfway = state.ingest([fix(3)], now: t0 + 3000, configuration: rules)
        #expect(halfway.retryAfterSeconds == 2)
        let later = state.ingest([fix(3)], now: t0 + 5000, configuration: rules)
        #expect(later.retryAfterSeconds == nil)
        #expect(later.accepted == [fix(3)])
    }
}

@Suite struct DriverIngestStateMemoryTests {
    @Test func theStatePerDriverStaysSmall() {
        // The fleet keeps one per driver next to the index; together they must stay under 200 bytes a driver.
        #expect(MemoryLayout<DriverIngestState>.stride <= 40)
    }
}
