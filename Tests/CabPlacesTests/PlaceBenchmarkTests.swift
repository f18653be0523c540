import CabGeo
import CabPlacesBench
import CabTestSupport
import Testing

@testable import CabPlaces

@Suite struct PlaceBenchmarkTests {
    @Test func replaysEveryPrefixOfEachSampledName() throws {
        let result = try PlaceBenchmark.measure(index: SmallIndexFixture.index, names: 5, reversePoints: 7)
        #expect(result.forwardQueries >= 5)
        #expect(result.reverseQueries == 7)
        #expect(result.forwardFoundShare == 1)
        #expect(result.forwardMedianMilliseconds > 0)
        #expect(result.forwardP99Milliseconds >= result.forwardMedianMilliseconds)
        #expect(result.forwardCPUMedianMilliseconds > 0)
        #expect(result.forwardCPUP99Milliseconds >= result.forwardCPUMedianMilliseconds)
    }

    @Test func theSyntheticCityIsSearchable() throws {
        let directory = try TestData.temporaryDirectory("places-synthetic")
        let path = directory.appendingPathComponent("synthetic.places").path
        let report = try PlaceBenchmark.buildSynthetic(path: path, places: 3000)
        #expect(report.addresses > 1000)
        #expect(report.pois > 500)
        // 25 segments a street: merging leaves one result per street.
        #expect(report.streets * 10 < report.addresses)
        let index = try PlaceIndex(path: path)
        let measured = try PlaceBenchmark.measure(index: index, names: 20, reversePoints: 20)
        #expect(measured.forwardFoundShare > 0.8)
        #expect(measured.reverseAnsweredShare > 0.9)
    }
}
