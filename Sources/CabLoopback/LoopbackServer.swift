import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `cab serve` child process on 127.0.0.1 with a kernel-chosen port, as tools and users start it: started on a
/// data directory, stopped with SIGTERM (or killed, a crash). Reports its peak resident memory (`VmHWM` in
/// `/proc/PID/status`). The benchmarks run this same executable; the tests run the built `cab`.
public final class LoopbackServer: Sendable {
    /// The data directory the server was started on.
    public let dataDirectory: String
    /// The port it listens on (read from its `listening on http://127.0.0.1:PORT` line).
    public let port: Int
    /// Where its standard error (access log and errors) goes.
    public let logPath: String
    private let child: ChildProcess

    /// The server's process id.
    public var pid: pid_t { child.pid }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts `EXECUTABLE serve --data DIR --host 127.0.0.1 --port 0 EXTRA...` and waits for its first line.
    /// - Parameters:
    ///   - executable: the `cab` binary (by default this process's own executable, for `cab bench`).
    ///   - uncapped: adds `--max-per-address 0`: every benchmark client is on loopback, so the per-address
    ///     connection cap is off for them; the tests keep the cap a user gets.
    ///   - logPath: where the server's standard error goes (`/dev/null` keeps the access log off the disk).
    ///   - startupTimeoutSeconds: how long loading the data directory may take.
    ///   - environment: added to this process's own for the server (`CAB_CLOCK_SKEW_MS`, say).
    public init(
        executable: String = LoopbackServer.currentExecutable(), dataDirectory: String, extraArguments: [String] = [],
        uncapped: Bool = true, logPath: String = "/dev/null", startupTimeoutSeconds: Double = 120,
        environment: [String: String] = [:]
    ) throws(LoopbackError) {
        self.dataDirectory = dataDirectory
        self.logPath = logPath
        let arguments =
            ["serve", "--data", dataDirectory, "--host", "127.0.0.1", "--port", "0"]
            + (uncapped ? ["--max-per-address", "0"] : []) + extraArguments
        child = try ChildProcess(
            executable: executable, arguments: arguments, stderrPath: logPath, environment: environment)
        guard let line = child.readLine(timeoutSeconds: startupTimeoutSeconds) else {
            child.send(SIGKILL)
            let status = child.waitForExit()
            throw LoopbackError(
                "cab serve did not print `listening on ...` (exit status \(status)); see \(logPath) for its errors"
                    + Self.tail(of: logPath))
        }
        guard let port = Self.port(fromListeningLine: line) else {
            child.send(SIGKILL)
            throw LoopbackError("cab serve printed '\(line)' instead of `listening on http://127.0.0.1:PORT`")
        }
        self.port = port
    }

    /// The last 2 KiB of the log at `path` after a colon, or nothing for /dev/null or an unreadable file.
    static func tail(of path: String) -> String {
        guard path != "/dev/null", let text = try? String(contentsOfFile: path, encoding: .utf8), !text.isEmpty
        else { return "" }
        return ": " + text.suffix(2048)
    }

    /// The port in `listening on http://HOST:PORT`, nil for any other line.
    public static func port(fromListeningLine line: String) -> Int? {
        let prefix = "listening on http://"
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":") else { return nil }
        let digits = line[line.index(after: colon)...].prefix(while: \.isNumber)
        guard let port = Int(digits), (1...65535).contains(port) else { return nil }
        return port
    }

    /// This executable's path (`/proc/self/exe`, else argv[0]).
    public static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 { return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return CommandLine.arguments[0]
    }

    /// The peak resident set size so far in bytes (`VmHWM`), nil once the process is gone.
    public func peakResidentBytes() -> Int? { Self.statusField("VmHWM", pid: pid) }

    /// The current resident set size in bytes (`VmRSS`), nil once the process is gone.
    public func residentBytes() -> Int? { Self.statusField("VmRSS", pid: pid) }

    /// Reads a `kB` field of `/proc/PID/status` in bytes.
    public static func statusField(_ name: String, pid: pid_t) -> Int? {
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
    public func stop(graceSeconds: Double = 15) -> Int32 {
        child.stop(graceSeconds: graceSeconds)
    }

    /// Kills the server with SIGKILL (a crash) and waits for it.
    public func kill() {
        child.send(SIGKILL)
        child.waitForExit()
    }
}
