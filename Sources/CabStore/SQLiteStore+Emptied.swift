import CabCore
import Foundation

extension SQLiteStore {
    /// The file next to a store that says it held data: `cab.sqlite.holds-data`.
    public static func dataMarkerPath(for path: String) -> String { path + ".holds-data" }

    /// Refuses to open a store that was emptied behind SwiftCab's back: a zero-length or missing `cab.sqlite`
    /// next to its `.holds-data` marker (written when the store first opened), or a zero-length `cab.sqlite`
    /// next to a non-empty write-ahead log. Opening it would start an empty city without a word.
    static func refuseEmptiedStore(at path: String) throws {
        let files = FileManager.default
        let size = (try? files.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard size == nil || size == 0 else { return }
        let marker = dataMarkerPath(for: path)
        let walSize = (try? files.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        let how: String
        if files.fileExists(atPath: marker) {
            how = "\(marker) says this data directory held a store"
        } else if size == 0 && walSize > 0 {
            how = "its write-ahead log \(path)-wal still holds \(walSize) bytes"
        } else {
            return
        }
        let state = size == nil ? "is missing" : "is empty (0 bytes)"
        throw StoreError(
            .emptied,
            "\(path) \(state), but \(how): it looks damaged or truncated, and opening it would start an empty city. "
                + "Restore \(path) from a backup; to start an empty store on purpose, delete \(marker) "
                + "(and any \(path)-wal) first.")
    }

    /// Writes the `.holds-data` marker once the store has opened (a store always holds its schema).
    static func markHoldsData(at path: String) throws {
        let marker = dataMarkerPath(for: path)
        guard !FileManager.default.fileExists(atPath: marker) else { return }
        let text = """
            This file says that \((path as NSString).lastPathComponent) next to it holds a SwiftCab store.
            If that file is ever missing or empty, `cab serve` refuses to start instead of starting an empty
            city: restore it from a backup, or delete this file to start an empty store on purpose.

            """
        guard FileManager.default.createFile(atPath: marker, contents: Data(text.utf8)) else {
            throw StoreError(.database, "Cannot write \(marker); check that the data directory is writable.")
        }
    }
}

extension SQLiteStore.Configuration {
    /// The wall-clock time now (`clock_gettime(CLOCK_REALTIME)`).
    public static let systemWallClock: @Sendable () -> Instant = {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(millisecondsSinceEpoch: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}
