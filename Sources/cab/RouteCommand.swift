import CabAPI
import CabGeo
import CabRouting
import Foundation

/// `cab route --from LAT,LON --to LAT,LON`: the road route between two points, on the imported map.
enum RouteCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory (default $CAB_DATA or data/cab)"),
        .init(name: "from", valueName: "LAT,LON", help: "start point"),
        .init(name: "to", valueName: "LAT,LON", help: "end point"),
        .init(name: "json", valueName: nil, help: "print the route as JSON (GeoJSON geometry and polyline)"),
    ]

    static let usage = """
        usage: cab route [--data DIR] --from LAT,LON --to LAT,LON [--json]

        Prints the distance (km), the travel time (min) and the encoded polyline of the road route.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let from = args.coordinate("from")
        let to = args.coordinate("to")
        let routing = ServiceLoader.loadRouting(dataDirectory: dataDirectory(args))
        do {
            let plan = try routing.route(from: from, to: to)
            if args.has("json") {
                let object: [String: Any] = [
                    "distance_m": plan.route.distanceMeters, "duration_s": plan.route.durationSeconds,
                    "from": ["lat": plan.start.latitude, "lon": plan.start.longitude],
                    "to": ["lat": plan.end.latitude, "lon": plan.end.longitude],
                    "polyline": Polyline.encode(plan.route.geometry),
                    "geometry": ["type": "LineString", "coordinates": plan.route.geometry.map { [$0.longitude, $0.latitude] }],
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                Console.line(String(decoding: data, as: UTF8.self))
            } else {
                Console.line(
                    String(
                        format: "%.2f km, %.1f min", plan.route.distanceMeters / 1000, plan.route.durationSeconds / 60))
                Console.line(Polyline.encode(plan.route.geometry))
            }
            exitProcess(0)
        } catch let error as RoutingError {
            Console.fail(error.message, code: 65)
        } catch {
            Console.fail("\(error)", code: 65)
        }
    }
}
