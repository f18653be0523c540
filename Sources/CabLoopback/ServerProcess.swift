#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A `cab serve` child process on 127.0.0.1 with a kernel-chosen port: this same executable, started on a data
/// directory, stopped with SIGTERM. Reports its peak resident memory (`VmHWM` in `/proc/PID/status`).
final class ServerProcess {
    /// The data directory the server was started on.
    let dataDirectory: String
    /// The port it listens on (read from its `listening on http://127.0.0.1:PORT` line).
    let port: Int
    /// Where its standard error (access log and errors) goes.
    let logPath: String
    private let child: ChildProcess

    /// The server's process id.
    var pid: pid_t { child.pid }
    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts `cab serve --data DIR --host 127.0.0.1 --port 0 EXTRA...` and waits for its first line.
    /// - Parameters:
    ///   - logPath: where the server's standard error goes (`/dev/null` keeps the access log off the disk).
    ///   - startupTimeoutSeconds: how long loading the data directory may take.
    init(
        dataDirectory: String, extraArguments: [String] = [], logPath: String = "/dev/null",
        startupTimeoutSeconds: Double = 120
    ) throws(BenchError) {
        self.dataDirectory = dataDirectory
        self.logPath = logPath
        // Every benchmark client is on loopback: the per-address connection cap is off.
        let arguments =
            ["serve", "--data", dataDirectory, "--host", "127.0.0.1", "--port", "0", "--max-per-address", "0"]
            + extraArguments
        child = try ChildProcess(executable: Self.currentExecutable(), arguments: arguments, stderrPath: logPath)
        guard let line = child.readLine(timeoutSeconds: startupTimeoutSeconds) else {
            child.send(SIGKILL)
            let status = child.waitForExit()
            throw BenchError(
                "cab serve did not print `listening on ...` (exit status \(status)); see \(logPath) for its errors")
        }
        guard let port = Self.port(fromListeningLine: line) else {
            child.send(SIGKILL)
            throw BenchError("cab serve printed '\(line)' instead of `listening on http://127.0.0.1:PORT`")
        }
        self.port = port
    }

    /// The port in `listening on http://HOST:PORT`, nil for any other line.
    static func port(fromListeningLine line: String) -> Int? {
        let prefix = "listening on http://"
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":") else { return nil }
        let digits = line[line.index(after: colon)...].prefix(while: \.isNumber)
        guard let port = Int(digits), (1...65535).contains(port) else { return nil }
        return port
    }

    /// This executable's path (`/proc/self/exe`, else argv[0]).
    static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return CommandLine.arguments[0]
    }

    /// The peak resident set size so far in bytes (`VmHWM`), nil once the process is gone.
    func peakResidentBytes() -> Int? { Self.statusField("VmHWM", pid: pid) }

    /// The current resident set size in bytes (`VmRSS`), nil once the process is gone.
    func residentBytes() -> Int? { Self.statusField("VmRSS", pid: pid) }

    /// Reads a `kB` field of `/proc/PID/status` in bytes.
    static func statusField(_ name: String, pid: pid_t) -> Int? {
        // /proc files report size 0, so read them with plain read(2) rather than Foundation's file APIs.
        let fd = open("/proc/\(pid)/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16 * 1024)
        let n = read(fd, &bytes, bytes.count)
        guard n > 0 else { return nil }
        let text = String(decoding: bytes[0..<n], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
                .flatMap { Int($0) }
            return number.map { $0 * 1024 }
        }
        return nil
    }

    /// Stops the server with SIGTERM (SIGKILL after `graceSeconds`) and returns its exit status.
    @discardableResult
    func stop(graceSeconds: Double = 15) -> Int32 {
        child.send(SIGTERM)
        if let status = child.waitForExit(timeoutSeconds: graceSeconds) { return status }
        child.send(SIGKILL)
        return child.waitForExit()
    }
}
