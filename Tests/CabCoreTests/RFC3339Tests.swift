import Testing

@testable import CabCore

@Suite struct RFC3339Tests {
    @Test func formatsInUTCWithMilliseconds() {
        #expect(RFC3339.format(.epoch) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Instant(millisecondsSinceEpoch: 1_700_000_000_123)) == "2023-11-14T22:13:20.123Z")
        #expect(RFC3339.format(Instant(millisecondsSinceEpoch: -1)) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339.format(Instant(secondsSinceEpoch: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(RFC3339.parse("2023-11-14T22:13:20Z") == Instant(millisecondsSinceEpoch: 1_700_000_000_000))
        #expect(RFC3339.parse("2023-11-15T00:13:20.5+02:00") == Instant(millisecondsSinceEpoch: 1_700_000_000_500))
        #expect(RFC3339.parse("2023-11-14t21:13:20.123456-01:00") == Instant(millisecondsSinceEpoch: 1_700_000_000_123))
    }

    @Test(arguments: [
        "2023-02-29T00:00:00Z", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20", "2023-11-14 22:13", "",
        "2023-11-14T22:13:20.Z", "2023-13-01T00:00:00Z", "2023-11-14T22:13:60Z", "2023-11-14T22:13:20Zjunk",
    ])
    func refusesMalformedOrImpossibleTimes(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func roundTripsAcrossCenturies() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let ms = Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)
            let instant = Instant(millisecondsSinceEpoch: ms)
            #expect(RFC3339.parse(RFC3339.format(instant)) == instant)
        }
    }
}
