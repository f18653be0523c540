import CabLoopback
import Foundation

/// Runs the built `cab` executable, as a user would.
public enum CabProcess {
    /// What a finished run printed and how it exited.
    public struct Result: Sendable {
        /// The exit status.
        public let status: Int32
        /// Standard output as text.
        public let standardOutput: String
        /// Standard error as text.
        public let standardError: String
    }

    /// The `cab` binary next to the test bundle (`.build/<config>/cab`), or `$CAB_BINARY`.
    public static var executableURL: URL {
        if let path = ProcessInfo.processInfo.environment["CAB_BINARY"] { return URL(fileURLWithPath: path) }
        var url = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("cab")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            url.deleteLastPathComponent()
        }
        return TestData.repositoryRoot.appendingPathComponent(".build/debug/cab")
    }

    /// Runs `cab arguments...` to completion; `environment` is added to the test's own.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(executable: executableURL, arguments, environment: environment)
    }

    /// Runs `executable arguments...` to completion (another tool the tests compare against, such as osmium), with
    /// CabLoopback's `ChildProcess`: standard output through a pipe read to its end (so a chatty child cannot fill
    /// it and block), standard error in a temporary file.
    public static func run(executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Result
    {
        let errorPath = NSTemporaryDirectory() + "cab-run-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).err"
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let child = try ChildProcess(
            executable: executable.path, arguments: arguments, stderrPath: errorPath, environment: environment)
        let output = child.readAll(limit: 256 << 20)
        let status = child.waitForExit()
        return Result(
            status: status, standardOutput: output,
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }
}
