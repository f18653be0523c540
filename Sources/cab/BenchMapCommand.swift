import CabBaseMap
import CabBench
import CabImport
import Foundation

/// `cab bench map`: the base map as tiles, per zoom: time (cold, gzip, cached) and bytes (identity, gzip) per tile
/// next to the bbox endpoint's query for
/// the same boxes and the web app's former blocks, in one run.
enum BenchMapCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "imported data directory (default $CAB_DATA or data/cab)"),
        .init(name: "min-zoom", valueName: "Z", help: "lowest zoom measured (default 10)"),
        .init(name: "max-zoom", valueName: "Z", help: "highest zoom measured (default 18)"),
        .init(
            name: "tiles", valueName: "N", help: "tiles measured per zoom: all, or a seeded sample of N (default 400)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench map [--data DIR] [--min-zoom Z] [--max-zoom Z] [--tiles N] [--json]

        Serves the tiles covering the imported base map at each zoom in process (as GET /v1/map/tiles does) and
        prints per zoom the tiles measured; p50/p99 time per tile written cold (an empty cache), the time gzip adds
        and p50/p99 from the cache; p50/max bytes as identity and as gzip; how many tiles hit the byte budget and
        how many features it left out; beside them, for the same boxes, the bbox endpoint's query
        (GET /v1/map/features) and the web app's former blocks (a tile of zoom z-2 with the features of zoom z).
        Figures are printed, never asserted.

        \(Arguments.describe(flags))
        """

    struct Figures: Encodable {
        var data: String
        var build: String
        var byteBudget: Int
        var zooms: [MapTileBenchmark.ZoomFigures]

        enum CodingKeys: String, CodingKey {
            case data, build, zooms
            case byteBudget = "byte_budget"
        }
    }

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = args.value("data") ?? ProcessInfo.processInfo.environment["CAB_DATA"] ?? "data/cab"
        let minZoom = args.integer("min-zoom", default: 10, in: MapTile.zoomRange)
        let maxZoom = args.integer("max-zoom", default: 18, in: minZoom...MapTile.zoomRange.upperBound)
        let perZoom = args.integer("tiles", default: 400, in: 1...1_000_000)
        let path = DataDirectory(path: data).baseMapPath
        do {
            let index = try BaseMapIndex(path: path)
            let zooms = try MapTileBenchmark.measure(index: index, zooms: minZoom...maxZoom, tilesPerZoom: perZoom)
            let figures = Figures(
                data: data, build: BenchFormat.buildMode, byteBudget: BaseMapIndex.tileByteBudget, zooms: zooms)
            if args.has("json") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                Console.line(String(decoding: try encoder.encode(figures), as: UTF8.self))
            } else {
                printFigures(figures)
            }
            exitProcess(0)
        } catch let error as BaseMapError {
            Console.fail("\(error.message)", code: 66)
        } catch {
            Console.fail("\(error)", code: 70)
        }
    }

    static func printFigures(_ figures: Figures) {
        Console.line(
            "map tiles: \(figures.data) (\(figures.build) build), byte budget \(figures.byteBudget) B; "
                + "times in ms per query, sizes in KB (1,000 B)")
        Console.line(
            "zoom  tiles(measured/covering)  cold p50   p99 +gz p50 cache p50   p99  p50KB  maxKB gzKB gzmaxKB"
                + " trunc  left | bbox p50   p99  p50KB  maxKB | blocks  p50   p99  maxKB")
        func kb(_ bytes: Int) -> String { String(format: "%6.1f", Double(bytes) / 1000) }
        func ms(_ value: Double) -> String { String(format: "%5.2f", value) }
        for z in figures.zooms {
            let tiles = "\(z.measuredTiles)/\(z.coveringTiles)".padding(toLength: 19, withPad: " ", startingAt: 0)
            Console.line(
                String(format: "%4d  ", z.zoom) + tiles + "     " + ms(z.tile.p50Milliseconds) + " "
                    + ms(z.tile.p99Milliseconds) + "   " + ms(z.gzip.p50Milliseconds) + "     "
                    + ms(z.cached.p50Milliseconds) + " " + ms(z.cached.p99Milliseconds) + " " + kb(z.tile.p50Bytes)
                    + " " + kb(z.tile.maxBytes) + " " + kb(z.gzip.p50Bytes) + "  " + kb(z.gzip.maxBytes)
                    + String(format: " %5d %5d", z.truncatedTiles, z.featuresLeftOut) + " |     "
                    + ms(z.bbox.p50Milliseconds) + " " + ms(z.bbox.p99Milliseconds) + " " + kb(z.bbox.p50Bytes) + " "
                    + kb(z.bbox.maxBytes) + " | " + String(format: "%6d", z.block.count) + " "
                    + ms(z.block.p50Milliseconds) + " " + ms(z.block.p99Milliseconds) + " " + kb(z.block.maxBytes))
        }
    }
}
