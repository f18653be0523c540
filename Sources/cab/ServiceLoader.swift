import CabAPI
import CabBaseMap
import CabCluster
import CabCore
import CabDispatch
import CabHTTP
import CabImport
import CabPlaces
import CabRouting
import CabStore
import Foundation
import Logging

/// Loads what `cab serve` answers from out of the data directory, failing with a message that says what to fix.
enum ServiceLoader {
    /// Everything `cab serve` answers from. Without an imported map it serves what it can (503 for the rest).
    static func load(dataDirectory: String, settings: ServeSettings, metrics: MetricsRegistry = MetricsRegistry())
        -> Services
    {
        let directory = DataDirectory(path: dataDirectory)
        guard directory.hasMap else {
            Log.warning("no map imported; routing, places and booking endpoints answer 503", ["data": dataDirectory])
            return Services()
        }
        var services = Services()
        // Each phase's seconds, logged once (docs/performance.md, "Metro, start-up and import memory").
        let clock = ContinuousClock()
        var phases: [String: String] = [:]
        var phaseStart = clock.now
        func endPhase(_ name: String) {
            let elapsed = clock.now - phaseStart
            phases[name] = String(
                format: "%.3f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            phaseStart = clock.now
        }
        services.routing = loadRouting(dataDirectory: dataDirectory)
        endPhase("routing_s")
        do {
            services.baseMap = try BaseMapIndex(path: directory.baseMapPath)
        } catch {
            Console.fail("\(error) (\(directory.baseMapPath)); import the map again", code: 65)
        }
        endPhase("basemap_s")
        do {
            services.places = try PlaceIndex(path: directory.placesPath)
        } catch {
            Console.fail("\(error.message) (\(directory.placesPath)); import the map again", code: 65)
        }
        endPhase("places_s")
        services.store = openStore(directory: directory, settings: settings)
        endPhase("store_s")
        Log.info("map loaded", phases)
        if settings.cluster != nil, let leases = services.store as? any ShardLeaseRepository {
            services.now = clusterClock(leases)
        }
        if let store = services.store {
            // Each change of the store's state is logged once, with what to do (StoreHealth).
            let name = store.health.path
            store.health.observe { snapshot in
                if let problem = snapshot.problem {
                    Log.error("store failing", ["problem": problem.rawValue, "detail": snapshot.detail, "store": name])
                } else {
                    Log.info("store recovered", ["store": name])
                }
            }
            services.tracking = TrackingService(
                configuration: settings.tracking, accounts: store, history: store, metrics: metrics, now: services.now)
        }
        if let tariffPath = settings.string("tariff_file") {
            services.tariff = loadTariff(tariffPath)
        }
        if let store = services.store, let tracking = services.tracking, let routing = services.routing {
            let configuration = settings.dispatch  // trip.*, dispatch.* (ServeSettings+Components.swift)
            let dispatch = DispatchCoordinator(
                store: store, tracking: tracking, eta: RoadETAEstimator(routing: routing), tariff: services.tariff,
                configuration: configuration, bus: tripBus(settings), now: services.now,
                log: Logger(label: "cab.dispatch"))
            let firstOffers = metrics.histogram(
                "dispatch_first_offer_seconds",
                help: "From a booking's creation to its first offers going out, on the node that dispatched it "
                    + "(on a cluster, the booking's time is the node's that took it)",
                buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
            dispatch.observeFirstOffers { firstOffers.observe(Double($0) / 1_000) }
            let stages = metrics.histogram(
                "dispatch_first_offer_stage_seconds",
                help: "The steps of a booking's first offer on the node that took each (commit, start_queue: the "
                    + "booking node; heard: from the booking's creation to the dispatching node acting on it; reads, "
                    + "search, offers_write: the dispatching node)",
                labelNames: ["stage"], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5])
            dispatch.observeFirstOfferStages { stage, seconds in stages.observe(seconds, ["stage": stage.rawValue]) }
            services.dispatch = dispatch
        }
        return services
    }

    /// The trip notifications' bus: a cluster node's forwards them to the other nodes and keeps each driver's open
    /// offer in Redis (a driver's stream on any node re-sends it); a single node's lives in the process.
    static func tripBus(_ settings: ServeSettings) -> any TripNotificationBus {
        guard let cluster = settings.cluster else { return InProcessTripBus() }
        let bus = ClusterTripBus(endpoint: cluster.endpoint, keys: ClusterKeys(city: cluster.city), node: cluster.node)
        bus.start()
        return bus
    }

    /// The durable store: PostgreSQL when `store.postgres_url` is set (several nodes may share it), else the data
    /// directory's SQLite file. A PostgreSQL URL with a wrong password, role or database exits 64 saying which; a
    /// server that does not answer exits 69; a damaged or too new store 65.
    static func openStore(directory: DataDirectory, settings: ServeSettings) -> any ApplicationStore {
        guard let postgres = settings.postgres else {
            do {
                return try SQLiteStore(path: directory.storePath, configuration: settings.store)
            } catch {
                Console.fail("cannot open the store \(directory.storePath): \(error)", code: 65)
            }
        }
        do {
            let store = try PostgresStore(postgres)
            Log.info("store opened", ["store": store.health.path, "kind": "postgresql"])
            if let waited = try? store.deadlockTimeoutMilliseconds(), waited > 200 {
                Log.warning(
                    "PostgreSQL's deadlock_timeout is long: a deadlock between two writes holds both that long; set "
                        + "deadlock_timeout = 100ms in postgresql.conf (docs/dispatch-ownership.md)",
                    ["deadlock_timeout_ms": "\(waited)"])
            }
            return store
        } catch let error as StoreError {
            let code: Int32 = error.code == .misconfigured ? 64 : error.code == .unavailable ? 69 : 65
            Console.fail("cannot open the PostgreSQL store (store.postgres_url): \(error.message)", code: code)
        } catch {
            Console.fail("cannot open the PostgreSQL store (store.postgres_url): \(error)", code: 65)
        }
    }

    /// Routing alone, for commands that need no store (`route`, `simulate`): the data directory's store is not opened.
    /// On a cluster every node stamps times by the database's clock (`DatabaseClock`), kept in step every 10 s;
    /// a node whose own clock is off by more than a second says so.
    static func clusterClock(_ leases: any ShardLeaseRepository) -> @Sendable () -> Instant {
        let clock = DatabaseClock(read: { try leases.databaseMilliseconds() })
        if clock.synchronize(), let offset = clock.offsetMilliseconds, abs(offset) > 1_000 {
            Log.warning(
                "this node's clock is off the database's; the node stamps times by the database's",
                ["offset_ms": "\(offset)"])
        }
        clock.keepSynchronized()
        return { clock.now() }
    }

    static func loadRouting(dataDirectory: String) -> RoutingService {
        let clock = ContinuousClock()
        let start = clock.now
        let (graph, index) = loadRoads(dataDirectory: dataDirectory)
        let loaded = clock.now
        let service = RoutingService(graph: graph, index: index)
        Log.info("routing loaded", ["files": "\(loaded - start)", "service": "\(clock.now - loaded)"])
        return service
    }

    /// The imported road graph and its fast-routing index, each checked against the map it was built from; exits 66
    /// when nothing was imported and 65 when a file is damaged or from another map.
    static func loadRoads(dataDirectory: String) -> (graph: RoadGraph, index: FastRouterIndex) {
        let directory = DataDirectory(path: dataDirectory)
        guard directory.hasMap else {
            Console.fail(
                "no map has been imported into \(dataDirectory); run `cab import MAP.osm.pbf --data \(dataDirectory)`",
                code: 66)
        }
        do {
            let manifest = try directory.manifest()
            let graph = try RoadGraph.load(from: directory.roadGraphPath, expectedFingerprint: manifest.fingerprint)
            let index = try FastRouterIndex.load(
                from: directory.routingIndexPath, expectedFingerprint: graph.contractionFingerprint)
            return (graph, index)
        } catch let error as ImportError {
            Console.fail(error.message, code: 65)
        } catch let error as RoutingError {
            // The file's own message may already say to import again: then only the command is added.
            let command = "`cab import MAP.osm.pbf --data \(dataDirectory)`"
            let message = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            Console.fail(
                message.contains("cab import")
                    ? "\(message): \(command)" : "\(message); import the map again with \(command)", code: 65)
        } catch {
            Console.fail("cannot load the map of \(dataDirectory): \(error)", code: 65)
        }
    }

    /// Reads a tariff JSON file, or exits 64 naming what is wrong with it.
    static func loadTariff(_ path: String) -> Tariff {
        guard let data = FileManager.default.contents(atPath: path) else {
            Console.fail("cannot read the tariff file \(path)", code: 66)
        }
        do {
            let tariff = try JSONDecoder().decode(Tariff.self, from: data)
            if let warning = tariff.warning() { Log.warning("tariff", ["file": path, "warning": warning]) }
            return tariff
        } catch {
            let document = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            var detail = Tariff.explain(error, document: document)
            if document == nil {
                do { _ = try JSONSerialization.jsonObject(with: data) } catch let syntax as NSError {
                    detail =
                        "it is not valid JSON: "
                        + ((syntax.userInfo[NSDebugDescriptionErrorKey] as? String) ?? syntax.localizedDescription)
                }
            }
            Console.fail("the tariff file \(path) is invalid: \(detail)")
        }
    }
}
