import Foundation

/// A real PostgreSQL server for tests: `initdb` into a temporary directory, listening only on a Unix socket in
/// that directory, password (SCRAM) authentication, stopped and deleted by `stop()`.
///
/// PostgreSQL refuses to run as root, so when the tests run as root the server runs as the unprivileged
/// `postgres` user of Debian's package (through `runuser`). Needs Debian's `postgresql` package
/// (`scripts/install-deps.sh --test` installs it).
public final class PostgresTestServer: @unchecked Sendable {
    // @unchecked Sendable: every property is set in init and never changed; `stop()` only runs commands.
    /// The directory holding the data folder, the socket and the log.
    public let directory: URL
    /// The superuser's password.
    public let password = "cab-test-secret"
    /// The libpq connection string of the `postgres` database as superuser.
    public var conninfo: String { conninfo(database: "postgres") }
    let binaries: URL
    let runAs: String?

    /// The libpq connection string of `database` on this server (several parameters, socket directory as host).
    public func conninfo(database: String, password: String? = nil) -> String {
        "host=\(directory.path) port=5432 user=postgres dbname=\(database) password=\(password ?? self.password) connect_timeout=5"
    }

    /// Creates the cluster and starts the server; throws with the tool's own words when something is missing.
    public init() throws {
        binaries = try Self.findBinaries()
        runAs = getuid() == 0 ? "postgres" : nil
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "cab-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let user = runAs { try SpawnedProcess.run("/bin/chown", [user, directory.path]) }
        let passwordFile = directory.appendingPathComponent("pw")
        try password.write(to: passwordFile, atomically: true, encoding: .utf8)
        if let user = runAs { try SpawnedProcess.run("/bin/chown", [user, passwordFile.path]) }
        try command(
            "initdb",
            [
                "-D", dataPath, "-U", "postgres", "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8",
                "--no-sync",
            ])
        try start()
    }

    var dataPath: String { directory.appendingPathComponent("data").path }

    /// Starts the server (again, after `stopServer`), waiting until it accepts connections.
    public func start() throws {
        try command(
            "pg_ctl",
            [
                "-D", dataPath, "-w", "-t", "30", "-l", directory.appendingPathComponent("log").path, "-o",
                "-k \(directory.path) -c listen_addresses='' -c max_connections=400 -c shared_buffers=32MB -c deadlock_timeout=100ms",
                "start",
            ])
    }

    /// Stops the server (fast shutdown: open connections are closed), leaving its files for `start()`.
    public func stopServer() throws {
        try command("pg_ctl", ["-D", dataPath, "-w", "-t", "30", "-m", "fast", "stop"])
    }

    /// Stops the server if it runs and deletes its directory.
    public func stop() {
        try? stopServer()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `psql` with `sql` against `database` (for set-up steps such as `CREATE DATABASE`).
    public func psql(_ sql: String, database: String = "postgres") throws {
        try command("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", conninfo(database: database), "-c", sql])
    }

    private func command(_ tool: String, _ arguments: [String]) throws {
        let path = binaries.appendingPathComponent(tool).path
        if let user = runAs {
            try SpawnedProcess.run("/usr/sbin/runuser", ["-u", user, "--", path] + arguments)
        } else {
            try SpawnedProcess.run(path, arguments)
        }
    }

    static func findBinaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        throw HTTPTestError(
            description:
                "PostgreSQL server binaries not found under /usr/lib/postgresql: run scripts/install-deps.sh --test")
    }
}
