import CabLoopback
import Foundation

/// Shared formatting for the load tools' printed figures.
package enum BenchFormat {
    /// "debug" or "release": figures from a debug build are not the product's.
    package static var buildMode: String {
        #if DEBUG
            return "debug"
        #else
            return "release"
        #endif
    }

    /// `12,345` style.
    package static func rate(_ value: Double) -> String {
        let n = Int(value.rounded())
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out.padding(toLength: max(out.count, 8), withPad: " ", startingAt: 0)
    }

    /// "p50 1.23 ms  p99 4.56 ms  max 9.9 ms".
    package static func latencies(_ r: WrkResult) -> String {
        String(format: "p50 %.2f ms  p99 %.2f ms  max %.1f ms", r.p50Milliseconds, r.p99Milliseconds, r.maxMilliseconds)
    }

    /// "  (non-2xx 12: 404: 12; socket errors 3)" or "".
    package static func failures(_ r: WrkResult) -> String {
        var parts: [String] = []
        if r.non2xx > 0 { parts.append("non-2xx \(r.non2xx): \(r.statusSummary)") }
        if r.socketErrors > 0 { parts.append("socket errors \(r.socketErrors)") }
        return parts.isEmpty ? "" : "  (" + parts.joined(separator: "; ") + ")"
    }

    package static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    package static func round(_ value: Double, _ places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }

    /// One JSON object on one line with sorted keys.
    package static func jsonLine(_ object: [String: Any]) -> String {
        // Only numbers, strings, booleans and NSNull go in: serialization cannot fail.
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}

/// Writes `message` and a newline to standard error (progress lines; figures go to standard output).
package func standardError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes a line to standard output and flushes it (a user watching `cab simulate` sees each line at once).
package func standardOutputLine(_ text: String) {
    print(text)
    fflush(nil)
}
