import Foundation

/// Standard error and exit codes for the command line (sysexits: 64 usage, 65 bad data, 66 no input, 70 software).
enum Console {
    /// Writes `message` and a newline to standard error.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Writes `message` to standard error and exits with `code`.
    static func fail(_ message: String, code: Int32 = 64) -> Never {
        error("cab: " + message)
        exit(code)
    }
}
