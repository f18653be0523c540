import Foundation

/// A real `cab serve` child process on 127.0.0.1 with port 0, as tools and users start it.
public final class ServerProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init; the pipes are only read by init.
    /// The port it listens on (from its first stdout line, `listening on http://H:PORT`).
    public let port: Int
    /// The data directory it serves.
    public let dataDirectory: URL
    let process: Process
    let errorPipe: Pipe

    /// Starts `cab serve --data DIR --host 127.0.0.1 --port 0 extra...` and waits for its first line.
    public init(dataDirectory: URL, extraArguments: [String] = []) throws {
        self.dataDirectory = dataDirectory
        process = Process()
        process.executableURL = CabProcess.executableURL
        process.arguments = ["serve", "--data", dataDirectory.path, "--host", "127.0.0.1", "--port", "0"] + extraArguments
        let out = Pipe()
        errorPipe = Pipe()
        process.standardOutput = out
        process.standardError = errorPipe
        try process.run()
        var line: [UInt8] = []
        let handle = out.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte[byte.startIndex] == UInt8(ascii: "\n") { break }
            line.append(byte[byte.startIndex])
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("listening on http://"), let port = text.split(separator: ":").last.flatMap({ Int($0) })
        else {
            process.terminate()
            let err = String(decoding: errorPipe.fileHandleForReading.availableData, as: UTF8.self)
            throw HTTPTestError(description: "cab serve did not start: '\(text)' \(err)")
        }
        self.port = port
    }

    /// Sends SIGTERM and waits for the exit; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends SIGKILL (a crash) and waits.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Sends one request on a fresh connection and reads the response.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) throws -> HTTPTestResponse {
        let connection = try HTTPTestConnection(port: port)
        try connection.sendRequest(method, path, headers: headers, body: body)
        return try connection.readResponse(method: method)
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
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
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
        for file in try FileManager.default.contentsOfDirectory(atPath: source.path) where !file.hasPrefix("cab.sqlite") {
            try FileManager.default.copyItem(at: source.appendingPathComponent(file), to: dir.appendingPathComponent(file))
        }
        return dir
    }
}
