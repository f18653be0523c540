import CabGeo
import CabLoopback
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Redis `GEOSEARCH` on the same points as `TrackingBenchmark`, as the outside baseline: starts a private
/// `redis-server` on a Unix socket in a temporary directory (no TCP port, no persistence), loads the points with
/// pipelined `GEOADD`, times nearest-10 queries one at a time (`GEOSEARCH ... BYRADIUS R m ASC COUNT 10`, a round
/// trip each, as a server would pay), and stops it.
package enum RedisGeoBenchmark {
    package struct Result {
        package var medianMicroseconds: Double
        package var p99Microseconds: Double
        package var queries: Int
        package var version: String
    }

    /// Nil when `redis-server` is not installed.
    package static func run(
        points: [Coordinate], queries: [Coordinate], radiusMeters: Int = 1_500
    ) throws(BenchError) -> Result? {
        let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let executable else { return nil }
        let directory = NSTemporaryDirectory() + "cab-redis-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw BenchError("cannot create \(directory): \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socketPath = directory + "/redis.sock"
        let server = try ChildProcess(
            executable: executable,
            arguments: [
                "--port", "0", "--unixsocket", socketPath, "--save", "", "--appendonly", "no", "--dir", directory,
            ])
        defer {
            server.send(SIGTERM)
            _ = server.waitForExit(timeoutSeconds: 5)
        }
        let connection = try RESPConnection(socketPath: socketPath, waitSeconds: 10)
        let info = try connection.command(["INFO", "server"])
        let version =
            info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("redis_version:") }
            .map { String($0.dropFirst("redis_version:".count)).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        for chunk in stride(from: 0, to: points.count, by: 1000) {
            var arguments = ["GEOADD", "cab:drivers"]
            for i in chunk..<min(points.count, chunk + 1000) {
                arguments += [String(points[i].longitude), String(points[i].latitude), "d\(i)"]
            }
            _ = try connection.command(arguments)
        }
        var samples: [Double] = []
        samples.reserveCapacity(queries.count)
        let clock = ContinuousClock()
        for q in queries {
            let started = clock.now
            _ = try connection.command([
                "GEOSEARCH", "cab:drivers", "FROMLONLAT", String(q.longitude), String(q.latitude), "BYRADIUS",
                String(radiusMeters), "m", "ASC", "COUNT", "10",
            ])
            let elapsed = clock.now - started
            samples.append(elapsed.inMicroseconds)
        }
        samples.sort()
        return Result(
            medianMicroseconds: samples[samples.count / 2], p99Microseconds: samples[samples.count * 99 / 100],
            queries: samples.count, version: version)
    }
}

/// A blocking RESP2 connection over a Unix socket: sends one command, reads one whole reply.
package final class RESPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    package init(socketPath: String, waitSeconds: Double) throws(BenchError) {
        let deadline = monotonicSeconds() + waitSeconds
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw BenchError("cannot create a socket: \(errnoText())") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
            }
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if rc == 0 {
                self.fd = fd
                return
            }
            close(fd)
            guard monotonicSeconds() < deadline else { throw BenchError("redis-server did not open \(socketPath)") }
            usleep(20_000)  // the server is still starting
        }
    }

    deinit { close(fd) }

    /// Sends `arguments` as one command; returns the reply's text (bulk strings joined by newlines).
    package func command(_ arguments: [String]) throws(BenchError) -> String {
        var out = "*\(arguments.count)\r\n"
        for a in arguments { out += "$\(a.utf8.count)\r\n\(a)\r\n" }
        try LoopbackSocket.writeAll(fd, Array(out.utf8))
        var text = ""
        try readReply(into: &text)
        return text
    }

    private func readReply(into text: inout String) throws(BenchError) {
        let line = try readLine()
        guard let kind = line.first else { throw BenchError("redis sent an empty line") }
        let rest = String(line.dropFirst())
        switch kind {
        case "+", ":": text += rest + "\n"
        case "-": throw BenchError("redis: \(rest)")
        case "$":
            guard let n = Int(rest) else { throw BenchError("redis sent a bad bulk length") }
            if n >= 0 {
                let bytes = try readExact(n + 2)
                text += String(decoding: bytes.dropLast(2), as: UTF8.self) + "\n"
            }
        case "*":
            guard let n = Int(rest) else { throw BenchError("redis sent a bad array length") }
            for _ in 0..<max(0, n) { try readReply(into: &text) }
        default: throw BenchError("redis sent an unknown reply type")
        }
    }

    private func readLine() throws(BenchError) -> String {
        while true {
            if let i = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[start..<max(start, i - 1)], as: UTF8.self)
                start = i + 1
                return line
            }
            try fill()
        }
    }

    private func readExact(_ count: Int) throws(BenchError) -> ArraySlice<UInt8> {
        while buffer.count - start < count { try fill() }
        defer { start += count }
        return buffer[start..<start + count]
    }

    private func fill() throws(BenchError) {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && errno == EINTR { return }
        guard n > 0 else { throw BenchError("redis closed the connection") }
        buffer += chunk[..<n]
    }
}
