import CabTestSupport
import Foundation
import Testing

/// The disk fills up under `cab serve` (a small tmpfs holding the data directory, the map files linked in):
/// bookings get 503, `/healthz` says not ready, `/readyz` is 503, the log says once what to do; freeing space
/// recovers without a restart. Skipped (with a message) where this process may not mount a tmpfs.
@Suite(.serialized) struct DiskFullTests {
    static let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("cab-diskfull-\(getpid())")

    /// Whether `mount -t tmpfs` works here (root in a container that allows it).
    static let canMount: Bool = {
        try? FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint.path]) == 0 else {
            print("DiskFullTests skipped: cannot mount a tmpfs here (needs root and a container that allows mount)")
            return false
        }
        return true
    }()

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(.enabled(if: canMount, "needs a tmpfs mount"))
    func aFullDiskIsSeenAndFreeingSpaceRecovers() throws {
        defer { Self.run("/bin/umount", ["-l", Self.mountPoint.path]) }
        let map = try ImportedMap.dataDirectory()
        let data = Self.mountPoint.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: map.path) where !name.hasPrefix("cab.sqlite") {
            try FileManager.default.createSymbolicLink(
                at: data.appendingPathComponent(name), withDestinationURL: map.appendingPathComponent(name))
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cab-diskfull-\(getpid()).log")
        let server = Process()
        server.executableURL = CabProcess.executableURL
        server.arguments = ["serve", "--data", data.path, "--port", "0"]
        let out = Pipe()
        server.standardOutput = out
        #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
        server.standardError = try FileHandle(forWritingTo: log)
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            server.waitUntilExit()
        }
        var line: [UInt8] = []
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte.first == UInt8(ascii: "\n") { break }
            line += byte
        }
        let port = try #require(String(decoding: line, as: UTF8.self).split(separator: ":").last.flatMap { Int($0) })
        func request(_ method: String, _ path: String, json: Any? = nil) throws -> HTTPTestResponse {
            let connection = try HTTPTestConnection(port: port)
            var headers: [String: String] = [:]
            var body: [UInt8] = []
            if let json {
                body = Array(try JSONSerialization.data(withJSONObject: json))
                headers["Content-Type"] = "application/json"
            }
            try connection.sendRequest(method, path, headers: headers, body: body)
            return try connection.readResponse(method: method)
        }
        #expect(try request("GET", "/readyz").status == 200)

        // Fill the disk but for a little room, then write until the store refuses.
        let filler = Self.mountPoint.appendingPathComponent("filler")
        let free = try #require(
            (try FileManager.default.attributesOfFileSystem(forPath: Self.mountPoint.path)[.systemFreeSize] as? NSNumber)?
                .intValue)
        #expect(FileManager.default.createFile(atPath: filler.path, contents: Data(count: max(0, free - 96 * 1024))))
        var accepted = 0
        var refused = 0
        let name = String(repeating: "n", count: 190)
        for i in 0..<2_000 where refused < 20 {
            let status = try request("POST", "/v1/riders", json: ["name": "\(name) \(i)"]).status
            if status == 201 { accepted += 1 } else if status == 503 { refused += 1 }
        }
        print("disk full: \(accepted) accounts written, then \(refused) refused with 503")
        #expect(refused == 20)
        let health = try request("GET", "/healthz")
        #expect(health.jsonObject?["ready"] as? Bool == false)
        let store = health.jsonObject?["store"] as? [String: Any]
        #expect(store?["problem"] as? String == "disk_full", "\(health.text)")
        #expect(try request("GET", "/readyz").status == 503)
        #expect(try request("GET", "/metrics").text.contains("store_healthy 0"))

        // Free the space: writes succeed again and the store is healthy again, without a restart. (Once, in a
        // fresh-clone CI run under load, the first write right after freeing was refused; not diagnosed: the test
        // allows a few refusals within 5 s and prints how many there were.)
        try FileManager.default.removeItem(at: filler)
        var refusedAfterFreeing = 0
        #expect(
            eventually(within: 5) {
                let written = (try? request("POST", "/v1/riders", json: ["name": "after"]).status) == 201
                if !written { refusedAfterFreeing += 1 }
                return written
            })
        print("disk freed: \(refusedAfterFreeing) writes refused before the first one stored")
        #expect(try request("GET", "/readyz").status == 200)
        server.terminate()
        server.waitUntilExit()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let failing = lines.filter { $0.contains("\"store failing\"") }
        let changes = lines.filter { $0.contains("\"store failing\"") || $0.contains("\"store recovered\"") }
        #expect(failing.count == 1, "logged once, not per failure: \(changes)")
        #expect(failing.first?.contains("Free space") == true)
        #expect(lines.contains { $0.contains("\"store recovered\"") })
    }
}
