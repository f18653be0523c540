import Foundation

/// Where the test inputs are: the repository, the shared map extracts, scratch directories.
public enum TestData {
    /// The repository root (the folder holding Package.swift).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        preconditionFailure("Package.swift not found above \(#filePath)")
    }()

    /// A real OSM extract from `../shared/data` (helsinki, monaco, baltimore, liechtenstein-latest).
    public static func sharedExtract(_ name: String) -> URL {
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data/\(name).osm.pbf")
    }

    /// The names of every shared extract.
    public static let sharedExtractNames = ["helsinki", "monaco", "baltimore", "liechtenstein-latest"]

    /// A fresh empty directory, removed by the caller (or left for inspection under /tmp).
    public static func temporaryDirectory(_ label: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftcab-\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
