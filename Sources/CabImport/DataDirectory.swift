import Foundation

/// The files of a data directory (`--data DIR`): everything `cab serve` keeps.
public struct DataDirectory: Sendable {
    /// The directory.
    public let path: String

    /// A data directory at `path` (it may not exist yet).
    public init(path: String) { self.path = path }

    /// The road graph (`RoadGraph` file).
    public var roadGraphPath: String { file("roads.graph") }
    /// The preprocessed fast-routing index.
    public var routingIndexPath: String { file("roads.ch") }
    /// The place index (SQLite).
    public var placesPath: String { file("places.sqlite") }
    /// The base map features (SQLite).
    public var baseMapPath: String { file("basemap.sqlite") }
    /// The store: accounts, bookings, trips, trails (SQLite).
    public var storePath: String { file("cab.sqlite") }
    /// What was imported, from which file (`MapManifest` JSON).
    public var manifestPath: String { file("map.json") }

    /// `name` inside the directory.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// True when a map has been imported here.
    public var hasMap: Bool { FileManager.default.fileExists(atPath: manifestPath) }

    /// Reads the manifest of the imported map.
    public func manifest() throws(ImportError) -> MapManifest {
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw ImportError(
                .noMap, "No map has been imported into \(path); run `cab import MAP.osm.pbf --data \(path)` first.")
        }
        do {
            return try JSONDecoder().decode(MapManifest.self, from: data)
        } catch {
            throw ImportError(.corrupt, "\(manifestPath) is damaged; import the map again.", underlying: error)
        }
    }
}

/// What a data directory's map was imported from.
public struct MapManifest: Codable, Sendable, Equatable {
    /// The manifest format.
    public var version: Int
    /// The source file as given to `cab import`.
    public var source: String
    /// The fingerprint of the source file's bytes (`MapFingerprint`), stamped into every derived file.
    public var fingerprint: UInt64
    /// When the import finished (ISO 8601).
    public var importedAt: String
    /// Counts for people: nodes, ways, relations read; graph nodes and edges; places.
    public var counts: [String: Int]
    /// Seconds spent per stage.
    public var seconds: [String: Double]

    enum CodingKeys: String, CodingKey {
        case version, source, fingerprint, counts, seconds
        case importedAt = "imported_at"
    }
}

extension ImportError.Code {
    /// The data directory holds no imported map.
    public static let noMap = Self("no-map")
    /// A file is damaged.
    public static let corrupt = Self("corrupt")
    /// The source map cannot be read.
    public static let unreadableMap = Self("unreadable-map")
    /// A file could not be written.
    public static let writeFailed = Self("write-failed")
}
