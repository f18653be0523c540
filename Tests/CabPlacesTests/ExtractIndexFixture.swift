import CabGeo
import CabImport
import CabOSM
import CabPlaces
import CabTestSupport
import Foundation

/// Place indexes of the shared extracts, each built once per test run through `PlaceImport`.
///
/// Until `PBFReader` lands on main, the elements come from `osmium cat -f opl` (osmium-tool is a test
/// dependency already); the import path under test (`PlaceImport` → `PlaceIndexBuilder`) is the real one.
enum ExtractIndexFixture {
    static let helsinki = build("helsinki")
    static let monaco = build("monaco")

    static func build(_ name: String) -> (index: PlaceIndex, report: PlaceIndexBuildReport) {
        do {
            let directory = try TestData.temporaryDirectory("places-\(name)")
            let path = directory.appendingPathComponent("\(name).places").path
            var handler = PlaceImport(builder: PlaceIndexBuilder(path: path))
            try OPLReader.read(TestData.sharedExtract(name).path, into: &handler)
            let report = try handler.finish()
            return (try PlaceIndex(path: path), report)
        } catch {
            preconditionFailure("the \(name) place index could not be built: \(error)")
        }
    }
}

/// Reads osmium's OPL text format (one element a line) and hands the elements to a handler.
enum OPLReader {
    static func read(_ pbfPath: String, into handler: inout some OSMElementHandler) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/osmium")
        process.arguments = ["cat", "-f", "opl", pbfPath]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw OSMError(.init("osmium"), "osmium cat failed") }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            var id: Int64 = 0
            var tags: [String: String] = [:]
            var lon = 0.0
            var lat = 0.0
            var nodes: [Int64] = []
            var members: [OSMMember] = []
            for field in line.split(separator: " ") {
                let value = field.dropFirst()
                switch field.first {
                case "n" where id == 0, "w" where id == 0, "r" where id == 0: id = Int64(value) ?? 0
                case "T": tags = parseTags(value)
                case "x": lon = Double(value) ?? 0
                case "y": lat = Double(value) ?? 0
                case "N": nodes = value.split(separator: ",").compactMap { Int64($0.dropFirst()) }
                case "M":
                    members = value.split(separator: ",").compactMap { m in
                        let parts = m.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
                        guard let ref = Int64(parts[0].dropFirst()) else { return nil }
                        let type: OSMElementType = parts[0].first == "n" ? .node : parts[0].first == "w" ? .way : .relation
                        return OSMMember(type: type, ref: ref, role: parts.count > 1 ? unescape(parts[1]) : "")
                    }
                default: break
                }
            }
            switch line.first {
            case "n": try handler.handle(OSMNode(id: id, coordinate: Coordinate(latitude: lat, longitude: lon), tags: tags))
            case "w": try handler.handle(OSMWay(id: id, nodeIDs: nodes, tags: tags))
            case "r": try handler.handle(OSMRelation(id: id, members: members, tags: tags))
            default: break
            }
        }
    }

    static func parseTags(_ text: Substring) -> [String: String] {
        var tags: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2 else { continue }
            tags[unescape(kv[0])] = unescape(kv[1])
        }
        return tags
    }

    /// `%20%` → " ": OPL escapes a character as its code point in hex between percent signs.
    static func unescape(_ text: Substring) -> String {
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == "%", let end = text[text.index(after: i)...].firstIndex(of: "%"),
                let code = UInt32(text[text.index(after: i)..<end], radix: 16), let scalar = Unicode.Scalar(code)
            {
                out.unicodeScalars.append(scalar)
                i = text.index(after: end)
            } else {
                out.append(text[i])
                i = text.index(after: i)
            }
        }
        return out
    }
}
