import CabGeo
import CabRouting
import Foundation
import Testing

@testable import CabAPI
@testable import CabDispatch

@Suite struct RouteResponseTests {
    /// The hand-written JSON must say exactly what `JSONEncoder` says.
    @Test(arguments: [
        [Coordinate(latitude: 60.1699025, longitude: 24.9383953), Coordinate(latitude: 60.1655, longitude: 24.9466)],
        [Coordinate(latitude: -33.5, longitude: 151.25), Coordinate(latitude: -33.5000001, longitude: 151)],
    ])
    func handWrittenJSONEqualsTheEncoder(_ points: [Coordinate]) throws {
        let plan = RoutePlan(
            start: points[0], end: points[points.count - 1],
            route: Route(distanceMeters: 964.8123, durationMilliseconds: 144_692, geometry: points))
        let response = RouteResponse(plan)
        let fast = try JSONSerialization.jsonObject(with: Data(response.jsonBytes())) as? NSDictionary
        let reference = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(response)) as? NSDictionary
        #expect(fast != nil)
        #expect(fast == reference)
    }
}
