import ArgumentParser
import CabImport
import CabRouting
import Foundation

/// `cab import MAP.osm.pbf --data DIR`: builds everything `cab serve` needs from an OSM extract.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an OpenStreetMap extract (.osm.pbf) into a data directory.",
        discussion: """
            Reads an OpenStreetMap extract (PBF) once and writes the road graph, the fast-routing index, the place \
            index and the base map into DIR, replacing a previous import only when the new one is complete.
            """)

    @Argument(help: ArgumentHelp("the OpenStreetMap extract", valueName: "MAP.osm.pbf"))
    var map: String
    @OptionGroup var data: DataDirectoryOption
    @Flag(help: "no progress lines")
    var quiet = false
    @Option(
        help: ArgumentHelp(
            "turns cost by their angle on maps of up to N junctions (every junction split per arrival; the hierarchy "
                + "on top takes much longer to build on large maps, see docs/turns.md); 0: never",
            valueName: "N"))
    var turnCostJunctions = RoadNetworkBuilder().turnCostJunctionLimit
    @OptionGroup var logLevel: LogLevelOption

    func run() throws {
        logLevel.apply()
        guard FileManager.default.isReadableFile(atPath: map) else {
            Console.fail("cannot read the map file \(map)", code: 66)
        }
        let directory = DataDirectory(path: data.resolved)
        do {
            try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        } catch {
            Console.fail("cannot create the data directory \(directory.path): \(error.localizedDescription)", code: 73)
        }
        var lastReported = (stage: "", percent: -1)
        do {
            guard turnCostJunctions >= 0 else {
                Console.fail("--turn-cost-junctions must be 0 or more, not \(turnCostJunctions)", code: 64)
            }
            let manifest = try MapImporter.run(
                mapPath: map, into: directory, turnCostJunctionLimit: turnCostJunctions
            ) { stage, fraction in
                guard !quiet else { return }
                let percent = Int(fraction * 100) / 10 * 10
                guard stage.rawValue != lastReported.stage || percent != lastReported.percent else { return }
                lastReported = (stage.rawValue, percent)
                Log.info("import progress", ["stage": stage.rawValue, "percent": "\(percent)"])
            }
            let counts = manifest.counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: " ")
            let total = manifest.seconds.values.reduce(0, +)
            Console.line("imported \(map) into \(directory.path) in \(String(format: "%.2f", total)) s: \(counts)")
            exitProcess(0)
        } catch {
            Console.fail(error.message, code: 65)
        }
    }
}
