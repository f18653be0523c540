import Foundation

/// Debian's `zbarimg` (zbar-tools): the independent decoder that proves a QR code is real.
public enum ZBar {
    /// The executable.
    public static let executable = URL(fileURLWithPath: "/usr/bin/zbarimg")

    /// True when zbar-tools is installed.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    /// The text of the code in the image `file`, or nil when zbarimg finds none.
    public static func decode(_ file: URL) throws -> String? {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--quiet", "--raw", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
