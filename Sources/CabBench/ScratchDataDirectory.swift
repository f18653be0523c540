import CabImport
import CabLoopback
import Foundation

/// A temporary data directory for a benchmark server: symbolic links to an imported data directory's files
/// (map, routing index, places), without its bookings store, so a benchmark's thousands of bookings land in a
/// fresh store that is deleted afterwards instead of in the user's data.
package final class ScratchDataDirectory {
    /// The temporary directory's path.
    package let path: String
    /// The entries linked from the source directory.
    package let linked: [String]

    /// Creates `/tmp/cab-bench-XXXXXX` linking every entry of `source` (if it exists) except store files.
    package init(linkingFrom source: String?) throws(BenchError) {
        var template = Array(temporaryPath("cab-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
        path = String(cString: made)
        var linked: [String] = []
        if let source, let entries = try? FileManager.default.contentsOfDirectory(atPath: source) {
            let absolute = URL(fileURLWithPath: source).standardizedFileURL.path
            for name in entries.sorted() where !Self.isStoreFile(name) {
                do {
                    try FileManager.default.createSymbolicLink(
                        atPath: "\(path)/\(name)", withDestinationPath: "\(absolute)/\(name)")
                    linked.append(name)
                } catch {
                    throw BenchError("cannot link \(absolute)/\(name) into \(path): \(error)")
                }
            }
        }
        self.linked = linked
    }

    /// Whether `name` is part of the bookings store (SQLite file, WAL, shared memory, journal) rather than of the
    /// imported map.
    package static func isStoreFile(_ name: String) -> Bool {
        let store = URL(fileURLWithPath: DataDirectory(path: "/").storePath).lastPathComponent
        // The store, its journals, and the marker that says a store was there (`cab serve` refuses a missing store
        // whose marker exists, so a scratch copy linking the marker would not start).
        return name == store || name.hasPrefix(store + ".") || name.hasSuffix("-wal") || name.hasSuffix("-shm")
            || name.hasSuffix("-journal")
    }

    /// Deletes the directory and everything in it (the links, not what they point to).
    package func remove() {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            standardError("cab: could not remove \(path): \(error)")
        }
    }
}

/// `name` inside the temporary directory (`$TMPDIR`, else /tmp), without a doubled slash.
package func temporaryPath(_ name: String) -> String {
    let directory = NSTemporaryDirectory()
    return directory.hasSuffix("/") ? directory + name : directory + "/" + name
}
