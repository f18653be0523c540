import ArgumentParser
import CabAPI
import CabGeo
import CabRouting
import Foundation

/// `cab route --from LAT,LON --to LAT,LON`: the road route between two points, on the imported map.
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Print the road route between two points.",
        discussion: "Prints the distance (km), the travel time (min) and the encoded polyline of the road route.")

    @OptionGroup var data: DataDirectoryOption
    @Option(help: ArgumentHelp("start point, in decimal degrees (e.g. 60.1699,24.9384)", valueName: "LAT,LON"))
    var from: String
    @Option(help: ArgumentHelp("end point", valueName: "LAT,LON"))
    var to: String
    @Flag(help: "print the route as JSON (GeoJSON geometry and polyline)")
    var json = false
    @OptionGroup var logLevel: LogLevelOption

    func validate() throws {
        _ = try Coordinate.parsed(from, what: "--from")
        _ = try Coordinate.parsed(to, what: "--to")
    }

    func run() throws {
        logLevel.apply()
        let from = try Coordinate.parsed(from, what: "--from")
        let to = try Coordinate.parsed(to, what: "--to")
        let routing = ServiceLoader.loadRouting(dataDirectory: data.resolved)
        do {
            let plan = try routing.route(from: from, to: to)
            if json {
                let object: [String: Any] = [
                    "distance_m": plan.route.distanceMeters, "duration_s": plan.route.durationSeconds,
                    "from": ["lat": plan.start.latitude, "lon": plan.start.longitude],
                    "to": ["lat": plan.end.latitude, "lon": plan.end.longitude],
                    "polyline": Polyline.encode(plan.route.geometry),
                    "geometry": [
                        "type": "LineString", "coordinates": plan.route.geometry.map { [$0.longitude, $0.latitude] },
                    ],
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
