import Foundation

/// A section of a checked-in document that a test writes from the code (an access matrix, a problem table): the
/// test compares it, and `CAB_WRITE_DOCS=1` rewrites it between its two marker lines instead.
public enum GeneratedDocSection {
    /// True when the tests should rewrite generated sections (`CAB_WRITE_DOCS=1`).
    public static var writing: Bool { ProcessInfo.processInfo.environment["CAB_WRITE_DOCS"] == "1" }

    /// Whether the file at `path` (relative to the repository) holds `content` between `begin` and `end`;
    /// when writing, puts it there first.
    public static func matches(_ content: String, in path: String, begin: String, end: String) throws -> Bool {
        let url = TestData.repositoryRoot.appendingPathComponent(path)
        let text = try String(contentsOf: url, encoding: .utf8)
        if writing, let start = text.range(of: begin), let stop = text.range(of: end) {
            try (text[..<start.upperBound] + content + text[stop.lowerBound...]).write(
                to: url, atomically: true, encoding: .utf8)
            return true
        }
        return text.contains(begin + content + end)
    }
}
