import CabGeo
import CabOSM
import Foundation

/// osmium-tool (/usr/bin/osmium) as the oracle the reader is checked against.
enum Osmium {
    /// Element counts from `osmium fileinfo -e -j FILE`.
    struct Counts: Decodable, Equatable {
        var nodes: Int
        var ways: Int
        var relations: Int
    }

    private struct FileInfo: Decodable {
        struct DataSection: Decodable { var count: Counts }
        var data: DataSection
    }

    /// Runs `osmium ARGS...` and returns its standard output; fails the caller on a non-zero exit.
    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/osmium")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // osmium writes little to standard error, so reading standard output first cannot deadlock.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OsmiumFailure(arguments: arguments, stderr: String(decoding: errorData, as: UTF8.self))
        }
        return data
    }

    /// What osmium counts in a file.
    static func counts(_ file: URL) throws -> Counts {
        try JSONDecoder().decode(FileInfo.self, from: run(["fileinfo", "-e", "-j", file.path])).data.count
    }

    /// Every element of a file as OPL lines without metadata, in file order.
    static func opl(_ file: URL) throws -> [Substring] {
        let text = String(decoding: try run(["cat", file.path, "-f", "opl,add_metadata=false"]), as: UTF8.self)
        return text.split(separator: "\n")
    }

    /// Writes an uncompressed copy (raw blobs), so damage reaches the protobuf decoder instead of zlib's checksum.
    static func writeUncompressedCopy(of file: URL, to destination: URL) throws {
        _ = try run(["cat", file.path, "-o", destination.path, "-f", "pbf,pbf_compression=none", "--overwrite"])
    }
}

struct OsmiumFailure: Error, CustomStringConvertible {
    var arguments: [String]
    var stderr: String
    var description: String { "osmium \(arguments.joined(separator: " ")) failed: \(stderr)" }
}
