import Foundation

/// A real Redis server for tests: Debian's `redis-server` on a Unix socket in a temporary directory, no
/// persistence, no TCP port. `restart()` stops and starts it again (an empty server with a new `run_id`),
/// `pause()`/`resume()` send SIGSTOP/SIGCONT. `scripts/install-deps.sh --test` installs `redis-server`.
public final class RedisTestServer: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced only by `restart()`, which tests call from one thread.
    /// The directory holding the socket and the log.
    public let directory: URL
    /// The socket's path.
    public var socketPath: String { directory.appendingPathComponent("redis.sock").path }
    /// The URL `CabRedis` takes.
    public var url: String { "unix://\(socketPath)" }
    private var process: SpawnedProcess?

    /// Starts a server and waits until its socket accepts connections.
    public init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "cab-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    /// Starts the server (again).
    public func start() throws {
        let binary = ["/usr/bin/redis-server", "/usr/sbin/redis-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let binary else {
            throw HTTPTestError(description: "redis-server not found: run scripts/install-deps.sh --test")
        }
        let child = try SpawnedProcess(
            binary,
            [
                "--port", "0", "--unixsocket", socketPath, "--unixsocketperm", "700", "--save", "", "--appendonly",
                "no",
                "--dir", directory.path, "--daemonize", "no",
            ],
            outputPath: directory.appendingPathComponent("log").path)
        process = child
        for _ in 0..<500 {
            if canConnect() { return }
            usleep(10_000)
        }
        child.stop(signal: SIGKILL)
        throw HTTPTestError(description: "redis-server did not start: \(child.output.suffix(600))")
    }

    /// Stops the server (SIGTERM, or SIGKILL for a crash) and waits for it.
    public func stopServer(kill: Bool = false) {
        process?.stop(signal: kill ? SIGKILL : SIGTERM)
        process = nil
        try? FileManager.default.removeItem(atPath: socketPath)
    }

    /// Stops and starts it again: an empty server with a new `run_id`.
    public func restart() throws {
        stopServer()
        try start()
    }

    /// Freezes the server (SIGSTOP): connections stay open but nothing is answered.
    public func pause() { if let p = process { kill(p.pid, SIGSTOP) } }

    /// Lets a paused server go on (SIGCONT).
    public func resume() { if let p = process { kill(p.pid, SIGCONT) } }

    /// Stops the server and deletes its directory.
    public func stop() {
        resume()
        stopServer()
        try? FileManager.default.removeItem(at: directory)
    }

    private func canConnect() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
            raw[path.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
