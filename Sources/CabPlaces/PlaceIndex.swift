import CabGeo
import CabSQLite
import Synchronization

/// A read-only place index file: forward search and reverse geocoding. Safe to call from many threads: each call
/// checks a connection out of a small pool (a `Mutex` around the idle ones) and opens a new one when none is idle.
public final class PlaceIndex: Sendable {
    /// The longest search text accepted, in characters.
    public static let maximumQueryLength = 200
    /// The most results one search returns.
    public static let maximumLimit = 50

    /// The index file.
    public let path: String
    private let idle: Mutex<[PlaceConnection]>
    private let maximumIdleConnections: Int
    /// The weights that order search results.
    public let ranking: PlaceRanking

    /// Opens the index at `path` read-only; `ranking` orders search results.
    /// - Throws: `PlacesError.notAnIndex` when the file is missing or is not a place index of this version.
    public init(path: String, maximumIdleConnections: Int = 8, ranking: PlaceRanking = PlaceRanking())
        throws(PlacesError)
    {
        self.path = path
        self.ranking = ranking
        self.maximumIdleConnections = max(1, maximumIdleConnections)
        idle = Mutex([try PlaceConnection(path: path)])
    }

    /// Runs `body` with a connection nobody else is using.
    package func withConnection<T>(_ body: (PlaceConnection) throws(PlacesError) -> T) throws(PlacesError) -> T {
        let pooled = idle.withLock { $0.popLast() }
        let connection: PlaceConnection
        if let pooled { connection = pooled } else { connection = try PlaceConnection(path: path) }
        defer {
            idle.withLock { connections in
                if connections.count < maximumIdleConnections { connections.append(connection) }
            }
        }
        return try body(connection)
    }

    /// Wraps a SQLite failure so that its text (which may quote the MATCH expression) never reaches a caller.
    package static func storageError(_ error: SQLiteError) -> PlacesError {
        PlacesError(.storage, "The place index could not answer this query.", underlying: error)
    }
}
