import CabGeo
import CabPlaces
import CabTestSupport

/// A hand-made index of a few Helsinki-like places, built once per test run.
enum SmallIndexFixture {
    static func point(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    static let features: [PlaceFeature] = [
        PlaceFeature(
            source: .init(.node, 1),
            tags: [
                "name": "Hotel Kämp", "tourism": "hotel", "addr:street": "Pohjoisesplanadi", "addr:housenumber": "29",
                "wikidata": "Q1",
            ],
            geometry: .point(point(60.16821, 24.94730))),
        PlaceFeature(
            source: .init(.node, 2), tags: ["name": "Kämp Spa", "shop": "beauty"],
            geometry: .point(point(60.16853, 24.94731))),
        PlaceFeature(
            source: .init(.way, 10),
            tags: [
                "name": "Stockmann", "name:sv": "Stockmann Helsingfors", "shop": "department_store",
                "addr:street": "Aleksanterinkatu", "addr:housenumber": "52",
            ],
            geometry: .area([
                [
                    point(60.1684, 24.9410), point(60.1690, 24.9410), point(60.1690, 24.9425), point(60.1684, 24.9425),
                    point(60.1684, 24.9410),
                ]
            ])),
        PlaceFeature(
            source: .init(.way, 20), tags: ["name": "Aleksanterinkatu", "highway": "tertiary"],
            geometry: .line([point(60.1686, 24.9400), point(60.1689, 24.9450)])),
        PlaceFeature(
            source: .init(.way, 21), tags: ["name": "Aleksanterinkatu", "highway": "tertiary"],
            geometry: .line([point(60.1689, 24.9450), point(60.1692, 24.9500)])),
        PlaceFeature(
            source: .init(.way, 22), tags: ["name": "Aleksanterinkatu", "highway": "residential"],
            geometry: .line([point(60.4500, 25.1000), point(60.4510, 25.1010)])),
        PlaceFeature(
            source: .init(.way, 30),
            tags: ["name": "Pohjoisesplanadi", "name:sv": "Norra esplanaden", "highway": "primary"],
            geometry: .line([point(60.1680, 24.9420), point(60.1681, 24.9520)])),
        PlaceFeature(
            source: .init(.node, 40), tags: ["addr:street": "Aleksanterinkatu", "addr:housenumber": "6-10"],
            geometry: .point(point(60.1691, 24.9480))),
        PlaceFeature(
            source: .init(.node, 41), tags: ["addr:street": "Aleksanterinkatu", "addr:housenumber": "21"],
            geometry: .point(point(60.1688, 24.9440))),
        PlaceFeature(
            source: .init(.node, 50), tags: ["name": "Cafe Aalto", "amenity": "cafe"],
            geometry: .point(point(60.1683, 24.9445))),
        PlaceFeature(
            source: .init(.node, 51), tags: ["name": "Robert's Coffee", "amenity": "cafe"],
            geometry: .point(point(60.1700, 24.9400))),
        PlaceFeature(
            source: .init(.node, 52), tags: ["name": "Robert's Coffee", "amenity": "cafe"],
            geometry: .point(point(60.1650, 24.9500))),
        PlaceFeature(
            source: .init(.way, 60),
            tags: ["name": "Esplanadin puisto", "name:sv": "Esplanadparken", "leisure": "park"],
            geometry: .area([
                [
                    point(60.1672, 24.9440), point(60.1678, 24.9440), point(60.1678, 24.9500), point(60.1672, 24.9500),
                    point(60.1672, 24.9440),
                ]
            ])),
        PlaceFeature(
            source: .init(.node, 70), tags: ["name": "Kluuvi", "place": "neighbourhood"],
            geometry: .point(point(60.1700, 24.9450))),
    ]

    /// The index and its build report, built once.
    static let built: (index: PlaceIndex, report: PlaceIndexBuildReport) = {
        do {
            let directory = try TestData.temporaryDirectory("places-small")
            let path = directory.appendingPathComponent("small.places").path
            let builder = PlaceIndexBuilder(path: path)
            for feature in features { builder.add(feature) }
            let report = try builder.finish()
            return (try PlaceIndex(path: path), report)
        } catch {
            preconditionFailure("the small place index could not be built: \(error)")
        }
    }()

    static var index: PlaceIndex { built.index }
}
