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
        exitProcess(code)
    }

    /// Writes a line to standard output and flushes it (tools wait for lines like `listening on ...`).
    static func line(_ text: String) {
        print(text)
        fflush(nil)
    }
}

/// Ends the process with `code`.
func exitProcess(_ code: Int32) -> Never {
    fflush(nil)
    exit(code)
}

/// The data directory: `--data DIR`, else `$CAB_DATA`, else `data/cab` under the working directory.
func dataDirectory(_ arguments: Arguments) -> String { dataDirectory(given: arguments.value("data")) }

/// The data directory: `given` (a `--data` value), else `$CAB_DATA`, else `data/cab` under the working directory.
func dataDirectory(given: String?) -> String {
    given ?? ProcessInfo.processInfo.environment["CAB_DATA"] ?? "data/cab"
}
