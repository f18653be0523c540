import CabLoopback
import Foundation

/// A real `cab serve` child process on 127.0.0.1 with port 0, as tools and users start it: CabLoopback's
/// `LoopbackServer` (the one the benchmarks use) running the built `cab`, its standard error in a temporary log.
public final class ServerProcess: Sendable {
    /// The port it listens on (from its first stdout line, `listening on http://H:PORT`).
    public var port: Int { server.port }
    /// The data directory it serves.
    public let dataDirectory: URL
    private let server: LoopbackServer

    /// Starts `cab serve --data DIR --host 127.0.0.1 --port 0 extra...` (with `environment` added to the test's
    /// own) and waits for its first line.
    public init(dataDirectory: URL, extraArguments: [String] = [], environment: [String: String] = [:]) throws {
        self.dataDirectory = dataDirectory
        let log = NSTemporaryDirectory() + "cab-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        server = try LoopbackServer(
            executable: CabProcess.executableURL.path, dataDirectory: dataDirectory.path,
            extraArguments: extraArguments, uncapped: false, logPath: log, environment: environment)
    }

    /// Sends SIGTERM and waits for the exit; returns the exit status.
    @discardableResult
    public func stop() -> Int32 { server.stop() }

    /// Sends SIGKILL (a crash) and waits.
    public func kill() { server.kill() }

    /// Sends SIGSTOP: the process freezes (a stalled node) until `resume()`.
    public func pause() { _ = Foundation.kill(server.pid, SIGSTOP) }

    /// Sends SIGCONT after `pause()`.
    public func resume() { _ = Foundation.kill(server.pid, SIGCONT) }

    /// What the server wrote to standard error so far (its log lines).
    public var log: String { (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? "" }

    /// Sends one request on a fresh connection and reads the response.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) throws -> HTTPTestResponse {
        var client = LoopbackHTTPClient(port: port)
        client.timeoutSeconds = 10
        return try client.send(
            method, path, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: body.isEmpty && method != "POST" && method != "PUT" ? nil : body)
    }

    /// Sends JSON `object` and reads the response.
    public func request(
        _ method: String, _ path: String, json object: Any, headers: [String: String] = [:]
    ) throws -> HTTPTestResponse {
        let data = try JSONSerialization.data(withJSONObject: object)
        var h = headers
        h["Content-Type"] = "application/json"
        return try request(method, path, headers: h, body: Array(data))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: server.logPath)
    }
}

/// A data directory with a real extract imported by the built `cab import`, shared by the tests of one run.
public enum ImportedMap {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var imported: [String: URL] = [:]  // guarded by `lock`

    /// The data directory for `name` (a shared extract), imported on first use.
    public static func dataDirectory(_ name: String = "helsinki") throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        if let url = imported[name] { return url }
        let dir = try TestData.temporaryDirectory("map-\(name)")
        let result = try CabProcess.run(["import", TestData.sharedExtract(name).path, "--data", dir.path, "--quiet"])
        guard result.status == 0 else {
            throw HTTPTestError(description: "cab import failed (\(result.status)): \(result.standardError)")
        }
        imported[name] = dir
        return dir
    }

    /// A fresh copy of the imported `name` map (for tests that write to the store).
    public static func freshCopy(_ name: String = "helsinki") throws -> URL {
        let source = try dataDirectory(name)
        let dir = try TestData.temporaryDirectory("data-\(name)")
        for file in try FileManager.default.contentsOfDirectory(atPath: source.path) where !file.hasPrefix("cab.sqlite")
        {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(file), to: dir.appendingPathComponent(file))
        }
        return dir
    }
}
