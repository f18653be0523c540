import CabGeo
import Testing

@testable import CabTracking

/// Hostile numbers in a fix: none may trap, each is named, and the ingestion rules drop them as `invalid`.
@Suite struct FixRangeTests {
    let rules = IngestConfiguration()

    func hostile(
        heading: Double? = nil, speed: Double? = nil, accuracy: Double = 5, time: Int64 = t0 + 1000,
        seq: Int64? = nil
    ) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: 60.17, longitude: 24.94), timeMilliseconds: time, accuracyMeters: accuracy,
            speedMetersPerSecond: speed, headingDegrees: heading, sequence: seq)
    }

    /// The crash the probe found: `cab serve` died on a heading of 1e19 in `NearestDriverIndex.update`.
    @Test(arguments: [1e19, -1e19, 1e308, -720, 1e6, 359.6, -0.4])
    func theIndexTakesAnyFiniteHeadingWithoutTrapping(heading: Double) throws {
        var index = NearestDriverIndex<Int>()
        index.update(
            1, coordinate: Coordinate(latitude: 60.17, longitude: 24.94), timeMilliseconds: t0,
            headingDegrees: heading, speedMetersPerSecond: 1e308)
        let position = try #require(index.position(of: 1))
        let stored = try #require(position.headingDegrees)
        #expect((0..<360).contains(stored))
        let expected = Int((heading.truncatingRemainder(dividingBy: 360) + 360).rounded()) % 360
        #expect(stored == expected)
        #expect(position.speedMetersPerSecond == 6553.4)  // clamped to the 16-bit field
    }

    @Test(arguments: [
        (FixRanges.Field.heading, 1e19, 0.0, 5.0, t0),
        (.heading, 360, 0, 5, t0),
        (.heading, -720, 0, 5, t0),
        (.speed, 90, 1e308, 5, t0),
        (.speed, 90, -5, 5, t0),
        (.accuracy, 90, 5, -1, t0),
        (.accuracy, 90, 5, .infinity, t0),
        (.time, 90, 5, 5, -62_135_596_800_000),  // 0001-01-01
        (.time, 90, 5, 5, 0),  // 1970-01-01: a clock never set
        (.time, 90, 5, 5, -1_000),  // a negative timestamp
        (.time, 90, 5, 5, Int64.max),
        (.time, 90, 5, 5, Int64.min),
    ])
    func eachOutOfRangeNumberIsNamedAndDroppedAsInvalid(
        field: FixRanges.Field, heading: Double, speed: Double, accuracy: Double, time: Int64
    ) {
        let bad = hostile(heading: heading, speed: speed, accuracy: accuracy, time: time)
        #expect(FixRanges.violation(in: bad)?.field == field)
        var state = DriverIngestState()
        let outcome = state.ingest([bad], now: t0 + 2000, configuration: rules)
        #expect(outcome.accepted.isEmpty)
        #expect(outcome.dropped[.invalid] == 1)
        #expect(state.newestAppliedTimeMilliseconds == nil)
        // A good fix afterwards is applied (and no time arithmetic overflowed on the bad one).
        let good = state.ingest([hostile(heading: 90, speed: 8)], now: t0 + 3000, configuration: rules)
        #expect(good.accepted.count == 1)
    }

    @Test func aNegativeSequenceIsRefused() {
        #expect(FixRanges.violation(in: hostile(seq: -1))?.field == .sequence)
        #expect(FixRanges.violation(in: hostile(seq: 0)) == nil)
    }

    @Test func ordinaryFixesAreInRange() {
        #expect(FixRanges.violation(in: hostile(heading: 0, speed: 0, accuracy: 0)) == nil)
        #expect(FixRanges.violation(in: hostile(heading: 359.9, speed: 150, accuracy: 1_000_000)) == nil)
        #expect(FixRanges.violation(in: hostile()) == nil)  // no heading and no speed is fine
    }
}
