import ArgumentParser
import CabGeo
import CabImport
import CabPlaces
import Foundation

/// `cab search`: the place index from the command line, as you type.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the map's places as you type them.",
        discussion:
            "Searches the imported map's places (names, streets, addresses, categories) as you would type them.",
        aliases: ["places"])

    @OptionGroup var data: DataDirectoryOption
    @Option(help: ArgumentHelp("prefer places near this point", valueName: "LAT,LON"))
    var near: String?
    @Option(help: ArgumentHelp("how many results, 1-50", valueName: "N"))
    var limit = 10
    @Argument(help: ArgumentHelp("what to look for", valueName: "TEXT"))
    var text: [String] = []
    @OptionGroup var logLevel: LogLevelOption

    func validate() throws {
        guard !text.joined().isEmpty else {
            throw ValidationError("search needs some text, e.g. `cab search stockmann`")
        }
        guard (1...50).contains(limit) else {
            throw ValidationError("--limit must be a whole number from 1 to 50, not \(limit)")
        }
        if let near { _ = try Coordinate.parsed(near, what: "--near") }
    }

    func run() throws {
        logLevel.apply()
        let query = text.joined(separator: " ")
        let point = try near.map { text throws(ValidationError) in try Coordinate.parsed(text, what: "--near") }
        let index = PlaceIndex.opened(in: data.resolved)
        do {
            let results = try index.search(query, near: point, limit: limit)
            if results.isEmpty { Console.error("no places match '\(query)'") }
            for r in results { Console.line(r.line) }
            exitProcess(results.isEmpty ? 1 : 0)
        } catch {
            Console.fail(error.message, code: error.isCallerError ? 64 : 70)
        }
    }
}

/// `cab reverse LAT,LON`: the name a person would give a point.
struct ReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Name the place at a point.",
        discussion:
            "Prints the name a person would give the point: the place or address there, else the nearest street.")

    @OptionGroup var data: DataDirectoryOption
    @Argument(help: ArgumentHelp("the point, in decimal degrees", valueName: "LAT,LON"))
    var point: String
    @OptionGroup var logLevel: LogLevelOption

    func validate() throws {
        _ = try Coordinate.parsed(point, what: "the point")
    }

    func run() throws {
        logLevel.apply()
        let at = try Coordinate.parsed(point, what: "the point")
        let index = PlaceIndex.opened(in: data.resolved)
        do {
            guard let r = try index.reverse(at: at) else {
                Console.error("nothing named near \(at)")
                exitProcess(1)
            }
            Console.line(r.line)
            exitProcess(0)
        } catch {
            Console.fail(error.message, code: error.isCallerError ? 64 : 70)
        }
    }
}

extension PlaceIndex {
    /// The data directory's place index; exits 66 when nothing was imported and 65 when the file is damaged.
    static func opened(in path: String) -> PlaceIndex {
        let directory = DataDirectory(path: path)
        guard directory.hasMap else {
            Console.fail(
                "no map has been imported into \(directory.path); run `cab import MAP.osm.pbf --data \(directory.path)`",
                code: 66)
        }
        do {
            return try PlaceIndex(path: directory.placesPath)
        } catch {
            Console.fail("\(error.message); import the map again", code: 65)
        }
    }
}

extension PlaceResult {
    /// One line for the terminal: name, address, category, point and distance.
    var line: String {
        var parts = [name]
        if !addressLine.isEmpty && addressLine != name { parts.append(addressLine) }
        parts.append("(\(category))")
        parts.append(String(format: "%.6f,%.6f", coordinate.latitude, coordinate.longitude))
        if let d = distanceMeters { parts.append(String(format: "%.0f m", d)) }
        return parts.joined(separator: "  ")
    }
}
