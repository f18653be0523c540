import Foundation
import Synchronization

/// One PostgreSQL server for a whole test process, with a fresh database per caller: the in-process API suites run
/// against PostgreSQL in `make test`'s second pass (`CAB_TEST_STORE=postgres`) without an `initdb` per test. The
/// server is stopped when the test process exits.
public enum SharedPostgres {
    /// True when the suites should keep their data in PostgreSQL (`CAB_TEST_STORE=postgres`).
    public static var selected: Bool { ProcessInfo.processInfo.environment["CAB_TEST_STORE"] == "postgres" }

    private static let state = Mutex<(server: PostgresTestServer?, databases: Int)>((nil, 0))

    /// The conninfo of a new, empty database on the shared server (started on first use).
    public static func freshDatabase() throws -> String {
        let (server, name): (PostgresTestServer, String) = try state.withLock { s in
            if s.server == nil {
                s.server = try PostgresTestServer()
                atexit { SharedPostgres.stopAtExit() }
            }
            s.databases += 1
            // `!`: set just above when it was nil.
            return (s.server!, "test_\(getpid())_\(s.databases)")
        }
        try server.psql("CREATE DATABASE \(name)")
        return server.conninfo(database: name)
    }

    private static func stopAtExit() {
        let server = state.withLock { s in
            defer { s.server = nil }
            return s.server
        }
        server?.stop()
    }
}
