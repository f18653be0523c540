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

    /// Runs `executable arguments...` to completion (another tool the tests compare against, such as osmium).
    public static func run(executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting so a chatty child cannot fill a pipe and block.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outData, as: UTF8.self),
            standardError: String(decoding: errData, as: UTF8.self))
    }
}
