import CabGeo
import CabImport
import CabPlaces
import Foundation

/// `cab search` and `cab reverse`: the place index from the command line.
enum PlaceCommands {
    static let searchFlags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory (default $CAB_DATA or data/cab)"),
        .init(name: "near", valueName: "LAT,LON", help: "prefer places near this point"),
        .init(name: "limit", valueName: "N", help: "how many results, 1-50 (default 10)"),
    ]

    static let searchUsage = """
        usage: cab search [--data DIR] [--near LAT,LON] [--limit N] TEXT...

        Searches the imported map's places (names, streets, addresses, categories) as you would type them.

        \(Arguments.describe(searchFlags))
        """

    static let reverseFlags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory (default $CAB_DATA or data/cab)")
    ]

    static let reverseUsage = """
        usage: cab reverse [--data DIR] LAT,LON

        Prints the name a person would give the point: the place or address there, else the nearest street.

        \(Arguments.describe(reverseFlags))
        """

    static func search(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: searchFlags, usage: searchUsage)
        let text = args.positional.joined(separator: " ")
        guard !text.isEmpty else { Console.fail("search needs some text\n\n\(searchUsage)") }
        let near = args.value("near").map { Arguments.parseCoordinate($0, what: "--near") }
        let limit = args.integer("limit", default: 10, in: 1...50)
        let index = openIndex(args)
        do {
            let results = try index.search(text, near: near, limit: limit)
            if results.isEmpty { Console.error("no places match '\(text)'") }
            for r in results { Console.line(describe(r)) }
            exitProcess(results.isEmpty ? 1 : 0)
        } catch {
            Console.fail(error.message, code: error.isCallerError ? 64 : 70)
        }
    }

    static func reverse(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: reverseFlags, usage: reverseUsage)
        guard args.positional.count == 1 else { Console.fail("reverse needs one LAT,LON\n\n\(reverseUsage)") }
        let point = Arguments.parseCoordinate(args.positional[0], what: "the point")
        let index = openIndex(args)
        do {
            guard let r = try index.reverse(at: point) else {
                Console.error("nothing named near \(point)")
                exitProcess(1)
            }
            Console.line(describe(r))
            exitProcess(0)
        } catch {
            Console.fail(error.message, code: error.isCallerError ? 64 : 70)
        }
    }

    static func openIndex(_ args: Arguments) -> PlaceIndex {
        let directory = DataDirectory(path: dataDirectory(args))
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

    static func describe(_ r: PlaceResult) -> String {
        var parts = [r.name]
        if !r.addressLine.isEmpty && r.addressLine != r.name { parts.append(r.addressLine) }
        parts.append("(\(r.category))")
        parts.append(String(format: "%.6f,%.6f", r.coordinate.latitude, r.coordinate.longitude))
        if let d = r.distanceMeters { parts.append(String(format: "%.0f m", d)) }
        return parts.joined(separator: "  ")
    }
}
