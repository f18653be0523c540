import CabGeo
import CabImport
import CabOSM
import CabPlaces
import CabTestSupport

/// Place indexes of the shared extracts, each built once per test run the way `cab import` builds them:
/// `PBFReader` → `PlaceImport` → `PlaceIndexBuilder`.
enum ExtractIndexFixture {
    static let helsinki = build("helsinki")
    static let monaco = build("monaco")

    static func build(_ name: String) -> (index: PlaceIndex, report: PlaceIndexBuildReport) {
        do {
            let directory = try TestData.temporaryDirectory("places-\(name)")
            let path = directory.appendingPathComponent("\(name).places").path
            var handler = PlaceImport(builder: PlaceIndexBuilder(path: path))
            _ = try PBFReader(path: TestData.sharedExtract(name).path).read(into: &handler)
            let report = try handler.finish()
            return (try PlaceIndex(path: path), report)
        } catch {
            preconditionFailure("the \(name) place index could not be built: \(error)")
        }
    }
}
