import CabAPI
import CabBaseMap
import CabGeo

/// Serves base-map tiles over a spread of tiles at each zoom from the map file in process (through
/// `MapTileService`, as `GET /v1/map/tiles` does) and measures time and size per tile: cold (a service with an empty
/// cache writes the tile), the gzip added to that, and from the cache; with two baselines from the same run: the
/// bbox endpoint's query for the same boxes (`features(in:zoom:)`, what `GET /v1/map/features` answers) and the web
/// app's former blocks (one tile of zoom z-2 with the features of zoom z).
package enum MapTileBenchmark {
    /// One zoom's figures.
    package struct ZoomFigures: Encodable, Sendable {
        /// The zoom.
        package var zoom: Int
        /// Tiles at this zoom that cover the map.
        package var coveringTiles: Int
        /// Tiles measured (all of them, or a seeded random sample); with fewer than 50, each several times.
        package var measuredTiles: Int
        /// Tiles written cold (an empty cache; the file's pages warm): time per tile (ms) and identity bytes.
        package var tile: Measured
        /// Gzipping the written tile: the time it adds (ms) and the gzip bytes, what goes on the wire.
        package var gzip: Measured
        /// The same tile again, from the service's cache (gzip): time (ms) and bytes.
        package var cached: Measured
        /// Measured tiles that hit the byte budget.
        package var truncatedTiles: Int
        /// Features of the measured tiles left out by the byte budget, in all.
        package var featuresLeftOut: Int
        /// The bbox endpoint's query for the same boxes.
        package var bbox: Measured
        /// The web app's former blocks holding the measured tiles (distinct, at most `blockCap`).
        package var block: Measured

        enum CodingKeys: String, CodingKey {
            case zoom, tile, gzip, cached, bbox, block
            case featuresLeftOut = "features_left_out"
            case coveringTiles = "covering_tiles"
            case measuredTiles = "measured_tiles"
            case truncatedTiles = "truncated_tiles"
        }
    }

    /// Percentiles of one series of queries.
    package struct Measured: Encodable, Sendable {
        /// How many queries.
        package var count: Int
        /// Median time per query, milliseconds.
        package var p50Milliseconds: Double
        /// 99th percentile time, milliseconds.
        package var p99Milliseconds: Double
        /// Median size, bytes.
        package var p50Bytes: Int
        /// Largest size, bytes.
        package var maxBytes: Int

        enum CodingKeys: String, CodingKey {
            case count
            case p50Milliseconds = "p50_ms"
            case p99Milliseconds = "p99_ms"
            case p50Bytes = "p50_bytes"
            case maxBytes = "max_bytes"
        }

        init(times: [Double], sizes: [Int]) {
            count = times.count
            p50Milliseconds = Self.percentile(times, 50)
            p99Milliseconds = Self.percentile(times, 99)
            p50Bytes = Int(Self.percentile(sizes.map(Double.init), 50))
            maxBytes = sizes.max() ?? 0
        }

        static func percentile(_ values: [Double], _ p: Double) -> Double { nearestRankPercentile(values, p) }
    }

    /// Measures every zoom in `zooms` over the tiles covering `index`'s extent: all of them when there are at most
    /// `tilesPerZoom`, else a random sample of that many (seeded, so runs compare). Blocks are capped at
    /// `blockCap` per zoom (a block at zoom 10 is a whole city). A zoom with fewer than `minimumSamples` tiles
    /// measures each of them several times, so that its percentiles are not one cold query.
    package static func measure(
        index: BaseMapIndex, zooms: ClosedRange<Int>, tilesPerZoom: Int, blockCap: Int = 64, minimumSamples: Int = 50
    ) throws -> [ZoomFigures] {
        guard let extent = try index.extent() else { return [] }
        let clock = ContinuousClock()
        func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
            let start = clock.now
            let value = try body()
            let elapsed = clock.now - start
            let (seconds, attoseconds) = elapsed.components
            return (value, Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
        }
        var generator = SplitMix64(seed: 19)
        // Warm the page cache and the statements: one pass over a few tiles of the middle zoom.
        for tile in MapTile.covering(extent, zoom: zooms.lowerBound).prefix(8) { _ = try index.tile(tile) }
        let capacity = MapTileService.defaultCapacityBytes
        var figures: [ZoomFigures] = []
        for zoom in zooms {
            var tiles = MapTile.covering(extent, zoom: zoom)
            let covering = tiles.count
            if tiles.count > tilesPerZoom {
                tiles.shuffle(using: &generator)
                tiles = Array(tiles.prefix(tilesPerZoom))
            }
            var tileTimes: [Double] = []
            var tileSizes: [Int] = []
            var gzipTimes: [Double] = []
            var gzipSizes: [Int] = []
            var cachedTimes: [Double] = []
            var cachedSizes: [Int] = []
            var leftOut = 0
            var bboxTimes: [Double] = []
            var bboxSizes: [Int] = []
            var truncated = 0
            let repeats = max(1, minimumSamples / max(tiles.count, 1))
            for (i, tile) in (0..<repeats).flatMap({ _ in tiles }).enumerated() {
                // Alternate which goes first, so neither always finds the other's pages warm.
                func measureTile() throws {
                    // A service of its own: the tile is written cold, then gzipped, then read from the cache.
                    let service = MapTileService(baseMap: index, capacityBytes: capacity)
                    let (identity, ms) = try timed { try service.tile(tile, coding: .identity) }
                    tileTimes.append(ms)
                    tileSizes.append(identity.count)
                    let (gzip, gzipMs) = try timed { try service.tile(tile, coding: .gzip) }
                    gzipTimes.append(gzipMs)
                    gzipSizes.append(gzip.count)
                    let (again, cachedMs) = try timed { try service.tile(tile, coding: .gzip) }
                    cachedTimes.append(cachedMs)
                    cachedSizes.append(again.count)
                    if i < tiles.count {
                        let collection = try index.tile(tile)
                        if collection.truncated { truncated += 1 }
                        leftOut += collection.featuresLeftOut
                    }
                }
                func measureBox() throws {
                    let (collection, ms) = try timed { try index.features(in: tile.boundingBox, zoom: zoom) }
                    bboxTimes.append(ms)
                    bboxSizes.append(collection.geoJSON.utf8.count)
                }
                if i % 2 == 0 {
                    try measureTile()
                    try measureBox()
                } else {
                    try measureBox()
                    try measureTile()
                }
            }
            var blocks: [MapTile] = []
            var seen: Set<MapTile> = []
            for tile in tiles where zoom >= 2 {
                let block = MapTile(zoom: zoom - 2, x: tile.x >> 2, y: tile.y >> 2)!  // an ancestor is in range
                if seen.insert(block).inserted { blocks.append(block) }
                if blocks.count == blockCap { break }
            }
            var blockTimes: [Double] = []
            var blockSizes: [Int] = []
            let blockRepeats = max(1, minimumSamples / max(blocks.count, 1))
            for block in (0..<blockRepeats).flatMap({ _ in blocks }) {
                let (collection, ms) = try timed { try index.features(in: block.boundingBox, zoom: zoom) }
                blockTimes.append(ms)
                blockSizes.append(collection.geoJSON.utf8.count)
            }
            figures.append(
                ZoomFigures(
                    zoom: zoom, coveringTiles: covering, measuredTiles: tiles.count,
                    tile: Measured(times: tileTimes, sizes: tileSizes),
                    gzip: Measured(times: gzipTimes, sizes: gzipSizes),
                    cached: Measured(times: cachedTimes, sizes: cachedSizes), truncatedTiles: truncated,
                    featuresLeftOut: leftOut,
                    bbox: Measured(times: bboxTimes, sizes: bboxSizes),
                    block: Measured(times: blockTimes, sizes: blockSizes)))
        }
        return figures
    }
}
