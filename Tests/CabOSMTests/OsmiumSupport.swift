import CabGeo
import CabOSM
import CabTestSupport
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
    static func run(_ arguments: [String]) throws -> String {
        let result = try CabProcess.run(executable: URL(fileURLWithPath: "/usr/bin/osmium"), arguments)
        guard result.status == 0 else { throw OsmiumFailure(arguments: arguments, stderr: result.standardError) }
        return result.standardOutput
    }

    /// What osmium counts in a file.
    static func counts(_ file: URL) throws -> Counts {
        try JSONDecoder().decode(FileInfo.self, from: Data(run(["fileinfo", "-e", "-j", file.path]).utf8)).data.count
    }

    /// Every element of a file as OPL lines without metadata, in file order.
    static func opl(_ file: URL) throws -> [Substring] {
        let text = try run(["cat", file.path, "-f", "opl,add_metadata=false"])
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
