import Foundation

/// Structured JSON log lines to standard error: a constant message, data in metadata (STYLE.md §5).
enum Log {
    static func info(_ message: String, _ metadata: [String: String] = [:]) { write("info", message, metadata) }
    static func warning(_ message: String, _ metadata: [String: String] = [:]) { write("warning", message, metadata) }
    static func error(_ message: String, _ metadata: [String: String] = [:]) { write("error", message, metadata) }

    private static func write(_ level: String, _ message: String, _ metadata: [String: String]) {
        var object: [String: String] = metadata
        object["level"] = level
        object["message"] = message
        object["time"] = ISO8601DateFormatter().string(from: Date())
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        Console.error(String(decoding: data, as: UTF8.self))
    }
}
