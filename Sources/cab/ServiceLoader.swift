import CabAPI
import CabBaseMap
import CabImport
import CabRouting

/// Loads what `cab serve` answers from out of the data directory, failing with a message that says what to fix.
enum ServiceLoader {
    /// A part a command needs; a missing one ends the command with exit code 66.
    enum Part { case routing }

    static func load(dataDirectory: String, arguments: Arguments, needs: Set<Part> = []) -> Services {
        let directory = DataDirectory(path: dataDirectory)
        guard directory.hasMap else {
            if needs.isEmpty {
                Log.warning("no map imported; routing, places and booking endpoints answer 503", ["data": dataDirectory])
                return Services()
            }
            Console.fail(
                "no map has been imported into \(dataDirectory); run `cab import MAP.osm.pbf --data \(dataDirectory)`",
                code: 66)
        }
        let manifest: MapManifest
        do {
            manifest = try directory.manifest()
        } catch {
            Console.fail(error.message, code: 65)
        }
        var services = Services()
        do {
            let graph = try RoadGraph.load(from: directory.roadGraphPath, expectedFingerprint: manifest.fingerprint)
            services.routing = RoutingService(graph: graph)
        } catch {
            Console.fail("\(error.message) (\(directory.roadGraphPath)); import the map again", code: 65)
        }
        do {
            services.baseMap = try BaseMapIndex(path: directory.baseMapPath)
        } catch {
            Console.fail("\(error) (\(directory.baseMapPath)); import the map again", code: 65)
        }
        return services
    }
}
