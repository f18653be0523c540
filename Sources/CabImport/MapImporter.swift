import CabBaseMap
import CabGeo
import CabOSM
import CabPlaces
import CabRouting
import Foundation

/// Imports an OSM extract into a data directory in one streaming pass: the road graph, and (as they exist) the
/// place index and the base map. Files are written beside the old ones and swapped in at the end, so a failed
/// import leaves the previous map in place.
public enum MapImporter {
    /// A stage of the import, for progress lines.
    public enum Stage: String, Sendable {
        case reading = "reading map"
        case buildingGraph = "building road graph and fast-routing index"
        case writing = "writing files"
    }

    /// Imports `mapPath` into `directory` for `profile` (nil: `.taxi`; see `RoadImport.init`), with turn costs on
    /// maps of up to `turnCostJunctionLimit` junctions (nil: `RoadNetworkBuilder`'s default). `progress` receives
    /// a stage and its completed fraction 0...1.
    public static func run(
        mapPath: String, into directory: DataDirectory, profile: TravelProfile? = nil,
        turnCostJunctionLimit: Int? = nil, progress: (Stage, Double) -> Void = { _, _ in }
    ) throws(ImportError) -> MapManifest {
        let clock = ContinuousClock()
        var seconds: [String: Double] = [:]
        func measure<T>(_ name: String, _ body: () throws(ImportError) -> T) throws(ImportError) -> T {
            let start = clock.now
            defer { seconds[name] = (clock.now - start).seconds }
            return try body()
        }

        let fingerprint: UInt64
        do {
            fingerprint = try MapFingerprint.ofFile(atPath: mapPath)
        } catch {
            throw ImportError(.unreadableMap, "Cannot read the map \(mapPath): \(error.message)", underlying: error)
        }
        removeAbandonedStaging(in: directory)
        let staging = DataDirectory(
            path: directory.path + "/\(stagingPrefix)\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try FileManager.default.createDirectory(atPath: staging.path, withIntermediateDirectories: true)
        } catch {
            throw ImportError(.writeFailed, "Cannot create \(staging.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: staging.path) }  // gone after the swap; best effort

        let baseMapWriter: BaseMapWriter
        do {
            baseMapWriter = try BaseMapWriter(path: staging.baseMapPath)
        } catch {
            throw ImportError(.writeFailed, "Cannot create the base map: \(error.message)", underlying: error)
        }
        var handler = ImportPass(
            roads: RoadImport(profile: profile, sourceFingerprint: fingerprint),
            baseMap: BaseMapImport(writer: baseMapWriter, storesNodes: false),
            places: PlaceImport(builder: PlaceIndexBuilder(path: staging.placesPath), storesNodes: false))
        if let turnCostJunctionLimit { handler.roads.turnCostJunctionLimit = turnCostJunctionLimit }
        let summary = try measure("read") { () throws(ImportError) -> PBFReadSummary in
            do {
                let reader = try PBFReader(path: mapPath)
                return try reader.read(into: &handler) { done, total in
                    progress(.reading, total > 0 ? Double(done) / Double(total) : 1)
                }
            } catch let error as OSMError {
                throw ImportError(.unreadableMap, "Cannot import \(mapPath): \(error.message)", underlying: error)
            } catch {
                throw ImportError(.unreadableMap, "Cannot import \(mapPath): \(error)")
            }
        }
        progress(.buildingGraph, 0)
        let (graph, report) = try measure("graph") { () throws(ImportError) in handler.roads.build() }
        handler.releaseElements()  // the nodes and ways are not needed past here: preprocessing gets the room
        let index = try measure("preprocess") { () throws(ImportError) in
            FastRouterIndex(graph: ContractionGraph(roadGraph: graph))
        }
        progress(.buildingGraph, 1)
        progress(.writing, 0)
        try measure("basemap") { () throws(ImportError) in
            do {
                try handler.baseMap.finish()
            } catch {
                throw ImportError(.writeFailed, "Cannot write the base map: \(error)")
            }
        }
        let places = try measure("places") { () throws(ImportError) in
            do throws(PlacesError) {
                return try handler.places.finish()
            } catch {
                throw ImportError(.writeFailed, "Cannot write the place index: \(error.message)", underlying: error)
            }
        }
        try measure("write") { () throws(ImportError) in
            do throws(RoutingError) {
                try graph.write(to: staging.roadGraphPath)
                try index.write(to: staging.routingIndexPath)
            } catch {
                throw ImportError(.writeFailed, "Cannot write the road graph: \(error.message)", underlying: error)
            }
        }
        let manifest = MapManifest(
            version: 1, source: mapPath, fingerprint: fingerprint,
            importedAt: ISO8601DateFormatter().string(from: Date()),
            counts: [
                "osm_nodes": summary.nodes, "osm_ways": summary.ways, "osm_relations": summary.relations,
                "highway_ways": report.highwayClassWays, "graph_nodes": graph.nodeCount, "graph_edges": graph.edgeCount,
                "turn_restrictions": handler.roads.notes.restrictions,
                "turn_restrictions_applied": report.appliedRestrictions,
                "via_way_restrictions": handler.roads.notes.viaWayRestrictions,
                "broken_via_chains": report.brokenViaChains, "barriers": report.barriers,
                "turn_aware_junctions": report.turnAwareJunctions, "turn_costs": report.costsTurns ? 1 : 0,
                "basemap_features": baseMapWriter.countsByKind.values.reduce(0, +),
                "places": places.places,
            ],
            seconds: seconds)
        try write(manifest, to: staging.manifestPath)
        try swap(from: staging, into: directory)
        progress(.writing, 1)
        return manifest
    }

    private static func write(_ manifest: MapManifest, to path: String) throws(ImportError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(manifest).write(to: URL(fileURLWithPath: path))
        } catch {
            throw ImportError(.writeFailed, "Cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Moves every staged file over its counterpart (each `rename` is atomic); the manifest goes last so that a
    /// crash midway leaves the old manifest, whose fingerprint the new files do not match: `serve` then refuses
    /// with a clear message instead of mixing maps.
    private static func swap(from staging: DataDirectory, into directory: DataDirectory) throws(ImportError) {
        let fm = FileManager.default
        do {
            let names = try fm.contentsOfDirectory(atPath: staging.path).filter { $0 != "map.json" } + ["map.json"]
            for name in names {
                let target = directory.file(name)
                if rename(staging.file(name), target) != 0 {
                    throw ImportError(.writeFailed, "Cannot move \(name) into \(directory.path) (errno \(errno)).")
                }
            }
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError(.writeFailed, "Cannot list \(staging.path): \(error.localizedDescription)")
        }
    }
}

/// The one pass over the file: every element goes to every consumer. The node coordinates are kept once, by the
/// road builder; the base map and the place index look them up in its table (shared, not copied).
struct ImportPass: OSMElementHandler {
    var roads: RoadImport
    var baseMap: BaseMapImport
    var places: PlaceImport
    /// False until the first way, and again after a node that came after ways (an unsorted file).
    private var nodesShared = false

    init(roads: RoadImport, baseMap: BaseMapImport, places: PlaceImport) {
        self.roads = roads
        self.baseMap = baseMap
        self.places = places
    }

    mutating func handle(_ node: OSMNode) throws {
        try roads.handle(node)
        try baseMap.handle(node)
        try places.handle(node)
        nodesShared = false
    }

    /// Hands the road builder's node table to the other consumers (once the nodes have arrived).
    private mutating func shareNodes() {
        guard !nodesShared else { return }
        let lookup = roads.builder.nodes.lookup()
        baseMap.useNodes(lookup)
        places.useNodes(lookup)
        nodesShared = true
    }

    /// Forgets the nodes and ways of the pass.
    mutating func releaseElements() {
        roads.releaseElements()
        baseMap.releaseElements()
        places.releaseElements()
    }

    mutating func handle(_ way: OSMWay) throws {
        shareNodes()
        try roads.handle(way)
        try baseMap.handle(way)
        try places.handle(way)
    }

    mutating func handle(_ relation: OSMRelation) throws {
        shareNodes()
        try roads.handle(relation)
        try baseMap.handle(relation)
        try places.handle(relation)
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
