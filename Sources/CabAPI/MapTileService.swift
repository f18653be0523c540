import CabBaseMap
import CabGeo
import CabZlib
import Synchronization

/// The base map's tiles as `GET /v1/map/tiles/{z}/{x}/{y}.geojson` sends them: written by the base map on the
/// first request, gzipped on the first request that accepts gzip, and kept in a bounded cache, since the map does
/// not change while it is served (a new import is a new process, and a new fingerprint in every `ETag`).
package final class MapTileService: Sendable {
    /// How a tile's bytes are sent (`Content-Encoding`).
    package enum Coding: Sendable, Equatable {
        /// The GeoJSON text as it is.
        case identity
        /// The GeoJSON text as one gzip member (`Content-Encoding: gzip`).
        case gzip
    }

    /// The map the tiles come from.
    package let baseMap: BaseMapIndex
    /// The most bytes the cache keeps (identity and gzip bytes together); least recently used tiles go first.
    package let capacityBytes: Int
    private let cache: Mutex<TileCache>
    /// The box around the map's features, read once (`extent()`): nil until then.
    private let knownExtent = Mutex<BoundingBox??>(nil)

    /// The default cache: 64 MiB, about 600 of the densest tiles (98 KB identity and 10 KB gzip each) or about 5,000
    /// of a city's zoom-15 tiles.
    package static let defaultCapacityBytes = 64 << 20
    /// The gzip level: 6, zlib's default (level 9 saves about 1 % more on tiles and takes twice as long).
    package static let gzipLevel: Int32 = 6

    /// A service over `baseMap` keeping at most `capacityBytes` of encoded tiles (0: none).
    package init(baseMap: BaseMapIndex, capacityBytes: Int = MapTileService.defaultCapacityBytes) {
        self.baseMap = baseMap
        self.capacityBytes = max(0, capacityBytes)
        cache = Mutex(TileCache())
    }

    /// The strong `ETag` of `tile` sent with `coding`, quotes included: the base map's tag for the identity, the
    /// same with `-gz` inside the quotes for gzip (another representation, so another tag: RFC 9110 §8.8.3).
    package func entityTag(for tile: MapTile, coding: Coding) -> String {
        let identity = baseMap.entityTag(for: tile)
        return coding == .identity ? identity : String(identity.dropLast()) + "-gz\""
    }

    /// The box around every feature of the map (nil for an empty map), read from the map on the first call and
    /// kept: the map does not change while it is served.
    /// - Throws: `BaseMapError` when the map file cannot be read.
    package func extent() throws(BaseMapError) -> BoundingBox? {
        if let known = knownExtent.withLock({ $0 }) { return known }
        let extent = try baseMap.extent()
        knownExtent.withLock { $0 = .some(extent) }
        return extent
    }

    /// The bytes of `tile` sent with `coding`: from the cache, else written (and gzipped) now and kept.
    /// - Throws: `BaseMapError` when the map file cannot be read.
    package func tile(_ tile: MapTile, coding: Coding) throws(BaseMapError) -> [UInt8] {
        let cached = cache.withLock { $0.lookUp(tile) }
        if let cached {
            if coding == .identity { return cached.identity }
            if let gzip = cached.gzip { return gzip }
        }
        let identity: [UInt8]
        if let cached {
            identity = cached.identity
        } else {
            identity = Array(try baseMap.tile(tile).geoJSON.utf8)
        }
        let gzip = coding == .gzip ? Zlib.gzip(identity, level: Self.gzipLevel) : nil
        cache.withLock { $0.store(tile, identity: identity, gzip: gzip, capacityBytes: capacityBytes) }
        return gzip ?? identity
    }

    /// How many tiles and bytes the cache holds.
    package var cacheUsage: (tiles: Int, bytes: Int) {
        cache.withLock { ($0.entries.count, $0.bytes) }
    }
}

/// The encoded tiles kept, least recently used first out once over capacity.
struct TileCache {
    struct Entry {
        var identity: [UInt8]
        var gzip: [UInt8]?
        var lastUse: UInt64
        var bytes: Int { identity.count + (gzip?.count ?? 0) }
    }

    var entries: [MapTile: Entry] = [:]
    var bytes = 0
    private var clock: UInt64 = 0

    /// The tile's entry, marked used.
    mutating func lookUp(_ tile: MapTile) -> Entry? {
        clock += 1
        entries[tile]?.lastUse = clock
        return entries[tile]
    }

    /// Keeps the tile's bytes (adding gzip to an entry that had only the identity). Over `capacityBytes`, the least
    /// recently used quarter of the cache goes at once, so that eviction sorts rarely.
    /// - Complexity: amortized O(log n) per store.
    mutating func store(_ tile: MapTile, identity: [UInt8], gzip: [UInt8]?, capacityBytes: Int) {
        clock += 1
        let entry = Entry(identity: identity, gzip: gzip ?? entries[tile]?.gzip, lastUse: clock)
        guard entry.bytes <= capacityBytes else { return }
        bytes += entry.bytes - (entries[tile]?.bytes ?? 0)
        entries[tile] = entry
        guard bytes > capacityBytes else { return }
        let target = capacityBytes / 4 * 3
        for (oldTile, old) in entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard bytes > target, oldTile != tile else { continue }
            entries[oldTile] = nil
            bytes -= old.bytes
        }
    }
}
