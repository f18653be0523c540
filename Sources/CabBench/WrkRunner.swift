import CabLoopback
import Foundation

/// What one `wrk` run measured, parsed from the `CABWRK` line the script's `done()` prints.
package struct WrkResult: Sendable {
    /// Responses received.
    package var requests: Int
    /// The run's length in seconds (as wrk measured it).
    package var durationSeconds: Double
    /// Latency percentiles and extremes in milliseconds.
    package var p50Milliseconds: Double
    package var p90Milliseconds: Double
    package var p99Milliseconds: Double
    package var maxMilliseconds: Double
    package var meanMilliseconds: Double
    /// Responses with a status outside 200...299.
    package var non2xx: Int
    /// Non-2xx responses by status.
    package var statusCounts: [Int: Int]
    /// The script's own tally (e.g. fixes accepted), summed over threads.
    package var extra: Int
    /// Connect, read, write and timeout errors.
    package var socketErrors: Int

    /// Responses per second.
    package var requestsPerSecond: Double { durationSeconds > 0 ? Double(requests) / durationSeconds : 0 }
    /// 2xx responses per second.
    package var successesPerSecond: Double { durationSeconds > 0 ? Double(requests - non2xx) / durationSeconds : 0 }

    /// Parses `CABWRK key=value ...` from wrk's standard output; nil when the line is missing.
    package init?(wrkOutput: String) {
        guard let line = wrkOutput.split(separator: "\n").last(where: { $0.hasPrefix("CABWRK ") }) else { return nil }
        var fields: [String: String] = [:]
        for pair in line.dropFirst(7).split(separator: " ") {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            fields[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        func number(_ key: String) -> Double? { fields[key].flatMap(Double.init) }
        guard let requests = number("requests"), let duration = number("duration_us") else { return nil }
        self.requests = Int(requests)
        durationSeconds = duration / 1_000_000
        p50Milliseconds = (number("p50_us") ?? 0) / 1000
        p90Milliseconds = (number("p90_us") ?? 0) / 1000
        p99Milliseconds = (number("p99_us") ?? 0) / 1000
        maxMilliseconds = (number("max_us") ?? 0) / 1000
        meanMilliseconds = (number("mean_us") ?? 0) / 1000
        non2xx = Int(number("non2xx") ?? 0)
        extra = Int(number("extra") ?? 0)
        socketErrors = ["err_connect", "err_read", "err_write", "err_timeout"].reduce(0) { $0 + Int(number($1) ?? 0) }
        var counts: [Int: Int] = [:]
        for item in (fields["statuses"] ?? "").split(separator: ",") {
            let parts = item.split(separator: ":")
            if parts.count == 2, let status = Int(parts[0]), let n = Int(parts[1]) { counts[status] = n }
        }
        statusCounts = counts
    }

    /// "404: 1200, 429: 3" for printing.
    package var statusSummary: String {
        statusCounts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

/// Runs Debian's `wrk` against 127.0.0.1 with a generated Lua script and parses what it measured.
package struct WrkRunner {
    /// The wrk binary.
    package var executable = "/usr/bin/wrk"
    /// Load-generator threads (wrk's `-t`); each holds connections / threads connections.
    package var threads = 2
    /// Open connections (wrk's `-c`).
    package var connections = 64
    /// Seconds to run (wrk's `-d`).
    package var durationSeconds = 10
    /// Seconds before a request counts as timed out (wrk's `--timeout`).
    package var timeoutSeconds = 5

    /// Runs `script` against `baseURL` (which must be on 127.0.0.1) and returns the figures.
    package func run(baseURL: String, script: WrkScript) throws(BenchError) -> WrkResult {
        try start(baseURL: baseURL, script: script).finish()
    }

    /// Starts wrk in the background; `finish()` waits for it (or `interrupt()` ends it early, still reporting).
    package func start(baseURL: String, script: WrkScript) throws(BenchError) -> RunningWrk {
        guard baseURL.hasPrefix("http://127.0.0.1:") else { throw BenchError("load goes to 127.0.0.1 only") }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchError("\(executable) not found: install Debian's wrk (apt-get install wrk)")
        }
        let scriptPath = temporaryPath("cab-wrk-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).lua")
        guard FileManager.default.createFile(atPath: scriptPath, contents: Data(script.source.utf8)) else {
            throw BenchError("cannot write the wrk script to \(scriptPath)")
        }
        let process = try ChildProcess(
            executable: executable,
            arguments: [
                "-t", "\(max(1, min(threads, connections)))", "-c", "\(connections)", "-d", "\(durationSeconds)s",
                "--timeout", "\(timeoutSeconds)s", "-s", scriptPath, baseURL,
            ],
            stderrPath: scriptPath + ".err")
        return RunningWrk(process: process, scriptPath: scriptPath)
    }

    /// Creates one from every stored property (what the memberwise initializer was in `cab`).
    package init(
        executable: String = "/usr/bin/wrk", threads: Int = 2, connections: Int = 64, durationSeconds: Int = 10,
        timeoutSeconds: Int = 5
    ) {
        self.executable = executable
        self.threads = threads
        self.connections = connections
        self.durationSeconds = durationSeconds
        self.timeoutSeconds = timeoutSeconds
    }
}

/// A wrk run in progress.
package final class RunningWrk {
    private let process: ChildProcess
    private let scriptPath: String

    package init(process: ChildProcess, scriptPath: String) {
        self.process = process
        self.scriptPath = scriptPath
    }

    /// Ends the run early (SIGINT); wrk still prints its summary and `done()` line.
    package func interrupt() { process.send(SIGINT) }

    /// Waits for wrk to end and parses its figures; removes the script.
    package func finish() throws(BenchError) -> WrkResult {
        defer {
            try? FileManager.default.removeItem(atPath: scriptPath)
            try? FileManager.default.removeItem(atPath: scriptPath + ".err")
        }
        let output = process.readAll()
        let status = process.waitForExit()
        guard status == 0, let result = WrkResult(wrkOutput: output) else {
            let errors = (try? String(contentsOfFile: scriptPath + ".err", encoding: .utf8)) ?? ""
            throw BenchError("wrk failed (exit \(status)): \(errors.isEmpty ? output : errors)")
        }
        return result
    }
}
