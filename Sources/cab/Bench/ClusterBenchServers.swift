import CabBench
import CabLoopback
import CabRedis
import Foundation

/// `redis-server` for the benchmark: a Unix socket in a temporary folder, no persistence.
final class BenchRedis {
    let directory: String
    let child: ChildProcess
    var url: String { "unix://\(directory)/redis.sock" }

    init() throws(BenchError) {
        var template = Array(temporaryPath("cab-redis-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
        directory = String(cString: made)
        guard
            let binary = ["/usr/bin/redis-server", "/usr/sbin/redis-server"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else { throw BenchError("redis-server not found: run scripts/install-deps.sh --test") }
        child = try ChildProcess(
            executable: binary,
            arguments: [
                "--port", "0", "--unixsocket", "\(directory)/redis.sock", "--save", "", "--appendonly", "no", "--dir",
                directory,
            ], standardOutput: .file("\(directory)/log"))
        let endpoint = RedisEndpoint(address: .unix(path: "\(directory)/redis.sock"))
        for _ in 0..<500 {
            if (try? RedisConnection(endpoint, timeoutMilliseconds: 200)) != nil { return }
            usleep(10_000)
        }
        _ = child.stop(signal: SIGKILL)
        throw BenchError("redis-server did not start (see \(directory)/log)")
    }

    func stop() {
        _ = child.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// PostgreSQL for the benchmark: `initdb` (trust, user `cab`) in a temporary folder, listening only on a Unix
/// socket there, as `scripts/chaos-run.sh` starts it. PostgreSQL refuses to run as root, so as root the server runs
/// as Debian's unprivileged `postgres` user (through `runuser`) in a folder that user owns.
final class BenchPostgres {
    let directory: String
    private let binaries: String
    private let runAs: String?
    /// libpq's connection string of the `postgres` database as `cab`.
    var conninfo: String { "host=\(directory) user=cab dbname=postgres connect_timeout=5" }

    init() throws(BenchError) {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted {
            (Int($0) ?? 0) > (Int($1) ?? 0)
        }
        guard
            let bin = versions.map({ "\(root)/\($0)/bin" }).first(where: {
                FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
            })
        else { throw BenchError("PostgreSQL's server not found under \(root): run scripts/install-deps.sh --test") }
        binaries = bin
        var template = Array(temporaryPath("cab-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
        directory = String(cString: made)
        runAs = getuid() == 0 ? "postgres" : nil
        if let user = runAs {
            guard let entry = getpwnam(user), chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw BenchError("PostgreSQL refuses root and there is no `\(user)` user to run it as")
            }
        }
        try run("initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "cab", "--no-sync"])
        try run(
            "pg_ctl",
            [
                "-D", "\(directory)/data", "-w", "-t", "60", "-l", "\(directory)/log", "-o",
                "-k \(directory) -c listen_addresses='' -c max_connections=200 -c fsync=off", "start",
            ])
    }

    func stop() {
        try? run("pg_ctl", ["-D", "\(directory)/data", "-w", "-t", "30", "-m", "fast", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func run(_ tool: String, _ arguments: [String]) throws(BenchError) {
        let path = "\(binaries)/\(tool)"
        let (executable, all) =
            runAs.map { ("/usr/sbin/runuser", ["-u", $0, "--", path] + arguments) } ?? (path, arguments)
        // Standard output to a file: the server `pg_ctl start` leaves running would hold a pipe open.
        let child = try ChildProcess(
            executable: executable, arguments: all, standardOutput: .file("\(directory)/\(tool).out"))
        let status = child.waitForExit()
        guard status == 0 else {
            throw BenchError("\(tool) failed (exit \(status)); see \(directory)/\(tool).out and \(directory)/log")
        }
    }
}
