import CabBench
import CabImport
import CabLoopback
import CabPlaces
import CabPlacesBench
import CabRoutingBench
import Foundation

/// `cab bench places`: forward (typed prefixes) and reverse query times on a real map's index and, optionally, on a
/// synthetic index of a million places; index size and build time.
enum BenchPlacesCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "map", valueName: "FILE", help: "OSM extract to index (default data/maps/helsinki.osm.pbf)"),
        .init(
            name: "synthetic", valueName: "N",
            help: "also build and measure a synthetic index of N places (e.g. 1000000)"),
        .init(name: "names", valueName: "N", help: "names typed character by character (default 1000)"),
        .init(name: "points", valueName: "N", help: "reverse points (default 1000)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench places [--map FILE] [--synthetic N] [--json]

        Builds the place index of FILE in a scratch directory, replays typed prefixes and reverse points against it,
        and prints medians and p99s. Figures are printed, never asserted.

        \(Arguments.describe(flags))
        """

    struct Figures: Encodable {
        var map: String
        var buildSeconds: Double
        var indexBytes: Int
        var result: PlaceBenchmarkResult
        var synthetic: SyntheticFigures?

        enum CodingKeys: String, CodingKey {
            case map, result, synthetic
            case buildSeconds = "build_s"
            case indexBytes = "index_bytes"
        }
    }

    struct SyntheticFigures: Encodable {
        var buildSeconds: Double
        var indexBytes: Int
        var result: PlaceBenchmarkResult

        enum CodingKeys: String, CodingKey {
            case result
            case buildSeconds = "build_s"
            case indexBytes = "index_bytes"
        }
    }

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let map = args.value("map") ?? "data/maps/helsinki.osm.pbf"
        let names = args.integer("names", default: 1000, in: 1...1_000_000)
        let points = args.integer("points", default: 1000, in: 1...1_000_000)
        let syntheticCount = args.value("synthetic").map { _ in
            args.integer("synthetic", default: 0, in: 1...10_000_000)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cab-bench-places-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }  // scratch space; leftovers are harmless
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let directory = DataDirectory(path: scratch.path)
            let manifest = try MapImporter.run(mapPath: map, into: directory)
            let index = try PlaceIndex(path: directory.placesPath)
            let result = try PlaceBenchmark.measure(index: index, names: names, reversePoints: points)
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.placesPath)[.size] as? Int) ?? 0
            var figures = Figures(
                map: map, buildSeconds: manifest.seconds["places"] ?? 0, indexBytes: size, result: result,
                synthetic: nil)
            if !args.has("json") { printFigures(map, figures.buildSeconds, size, result) }
            if let syntheticCount {
                let path = scratch.appendingPathComponent("synthetic.sqlite").path
                let report = try PlaceBenchmark.buildSynthetic(path: path, places: syntheticCount)
                let synthetic = try PlaceBenchmark.measure(
                    index: try PlaceIndex(path: path), names: names, reversePoints: points)
                figures.synthetic = SyntheticFigures(
                    buildSeconds: report.buildSeconds, indexBytes: report.sizeBytes, result: synthetic)
                if !args.has("json") {
                    printFigures(
                        "synthetic (\(syntheticCount) places)", report.buildSeconds, report.sizeBytes, synthetic)
                }
            }
            if args.has("json") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                Console.line(String(decoding: try encoder.encode(figures), as: UTF8.self))
            }
            exitProcess(0)
        } catch let error as ImportError {
            Console.fail(error.message, code: 65)
        } catch let error as PlacesError {
            Console.fail(error.message, code: 70)
        } catch {
            Console.fail("\(error)", code: 70)
        }
    }

    static func printFigures(_ label: String, _ build: Double, _ bytes: Int, _ r: PlaceBenchmarkResult) {
        Console.line(
            "places: \(label): \(r.places) places, built in \(String(format: "%.2f", build)) s, \(bytes / 1024) KiB")
        Console.line(
            String(
                format:
                    "  forward: %d queries, median %.3f ms, p99 %.3f ms (targets < 2 ms, < 20 ms); full name found %.1f%%",
                r.forwardQueries, r.forwardMedianMilliseconds, r.forwardP99Milliseconds, r.forwardFoundShare * 100))
        Console.line(
            String(
                format: "  forward CPU time (thread): median %.3f ms, p99 %.3f ms",
                r.forwardCPUMedianMilliseconds, r.forwardCPUP99Milliseconds))
        Console.line(
            String(
                format: "  reverse: %d points, median %.3f ms, p99 %.3f ms (target median < 0.2 ms); answered %.1f%%",
                r.reverseQueries, r.reverseMedianMilliseconds, r.reverseP99Milliseconds, r.reverseAnsweredShare * 100))
    }
}
