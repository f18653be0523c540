import CabLoopback
import Foundation

/// A server the tests start (PostgreSQL, Redis) or a tool they run to its end, as CabLoopback's `ChildProcess` (the
/// one process runner of the tests and the benchmarks) with its output in a file.
public final class SpawnedProcess: Sendable {
    /// The child's process id.
    public var pid: pid_t { child.pid }
    /// Where its standard output and error go.
    public let outputPath: String
    private let child: ChildProcess

    /// Starts `path arguments...` with standard input from /dev/null and output to `outputPath`.
    public init(_ path: String, _ arguments: [String], outputPath: String) throws {
        self.outputPath = outputPath
        child = try ChildProcess(
            executable: path, arguments: arguments, standardOutput: .file(outputPath), stderrPath: nil)
    }

    /// Waits for the exit; returns the exit code (128 + signal for a signal).
    @discardableResult
    public func wait() -> Int32 { child.waitForExit() }

    /// Sends `signal` (SIGTERM by default) and waits for the exit.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        child.send(signal)
        return child.waitForExit()
    }

    /// What it printed so far.
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Runs a tool to its end and returns its output; throws with that output when it exits non-zero.
    @discardableResult
    public static func run(_ path: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "cab-spawn-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let child = try SpawnedProcess(path, arguments, outputPath: outputPath)
        let code = child.wait()
        let text = child.output
        guard code == 0 else {
            throw HTTPTestError(
                description: "\(path) \(arguments.first ?? "") failed (exit \(code)): \(text.suffix(800))")
        }
        return text
    }
}
