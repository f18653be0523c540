import CabAPI
import CabHTTP
import CabCore
import CabStore
import Foundation
import CabBaseMap
import CabImport
import CabPlaces
import CabRouting

/// Loads what `cab serve` answers from out of the data directory, failing with a message that says what to fix.
enum ServiceLoader {
    /// A part a command needs; a missing one ends the command with exit code 66.
    enum Part { case routing }

    static func load(
        dataDirectory: String, arguments: Arguments, needs: Set<Part> = [], metrics: MetricsRegistry = MetricsRegistry()
    ) -> Services {
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
            let index = try FastRouterIndex.load(
                from: directory.routingIndexPath, expectedFingerprint: ContractionGraph(roadGraph: graph).fingerprint)
            services.routing = RoutingService(graph: graph, index: index)
        } catch {
            Console.fail("\(error.message); import the map again with `cab import MAP.osm.pbf --data \(dataDirectory)`", code: 65)
        }
        do {
            services.baseMap = try BaseMapIndex(path: directory.baseMapPath)
        } catch {
            Console.fail("\(error) (\(directory.baseMapPath)); import the map again", code: 65)
        }
        do {
            services.places = try PlaceIndex(path: directory.placesPath)
        } catch {
            Console.fail("\(error.message) (\(directory.placesPath)); import the map again", code: 65)
        }
        do {
            services.store = try SQLiteStore(path: directory.storePath)
        } catch {
            Console.fail("cannot open the store \(directory.storePath): \(error)", code: 65)
        }
        if let store = services.store {
            services.tracking = TrackingService(accounts: store, history: store, metrics: metrics, now: services.now)
        }
        if let tariffPath = arguments.value("tariff") {
            services.tariff = loadTariff(tariffPath)
        }
        if let store = services.store, let tracking = services.tracking, let routing = services.routing {
            let dispatch = DispatchCoordinator(
                store: store, tracking: tracking, eta: RoadETAEstimator(routing: routing), tariff: services.tariff,
                configuration: DispatchCoordinator.Configuration(startsDispatchInBackground: true), now: services.now,
                log: { message, data in Log.info(message, data) })
            services.dispatch = dispatch
            services.bookingHooks = dispatch.bookingHooks
        }
        return services
    }

    /// Reads a tariff JSON file, or exits 64 naming what is wrong with it.
    static func loadTariff(_ path: String) -> Tariff {
        guard let data = FileManager.default.contents(atPath: path) else {
            Console.fail("cannot read the tariff file \(path)", code: 66)
        }
        do {
            return try JSONDecoder().decode(Tariff.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            Console.fail("the tariff file \(path) is invalid: \(context.debugDescription)")
        } catch {
            Console.fail("the tariff file \(path) is invalid: \(error)")
        }
    }
}
