import Foundation

/// Where a `LocationReporter` keeps its snapshot between runs.
public protocol ReporterStore: Sendable {
    /// The saved snapshot; nil when there is none yet.
    func load() throws(ClientError) -> ReporterSnapshot?
    /// Replaces the saved snapshot.
    func save(_ snapshot: ReporterSnapshot) throws(ClientError)
}

extension ClientError.Code {
    /// The reporter's file could not be read, written or decoded.
    public static let persistence = ClientError.Code("persistence")
}

/// A `ReporterStore` in one JSON file, replaced atomically on every save.
public struct FileReporterStore: ReporterStore {
    /// The file.
    public let url: URL

    /// A store at `url` (the folder must exist).
    public init(url: URL) { self.url = url }

    /// Reads the file; nil when it does not exist.
    public func load() throws(ClientError) -> ReporterSnapshot? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            return try decoder.decode(ReporterSnapshot.self, from: Data(contentsOf: url))
        } catch {
            throw ClientError(
                .persistence, "The location queue file \(url.path) is unreadable; delete it.",
                underlying: error)
        }
    }

    /// Writes the snapshot to a temporary file and renames it over the old one.
    public func save(_ snapshot: ReporterSnapshot) throws(ClientError) {
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            try encoder.encode(snapshot).write(to: url, options: .atomic)
        } catch {
            throw ClientError(.persistence, "Could not write the location queue to \(url.path).", underlying: error)
        }
    }
}
