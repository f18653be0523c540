import Foundation

extension MapImporter {
    /// The name prefix of an import's staging folder inside the data directory: `.import-PID-RANDOM`.
    static let stagingPrefix = ".import-"

    /// Removes the staging folders of imports that died before their swap (killed, out of memory, power cut):
    /// those whose process is gone, and those of the old `.import-RANDOM` form, which name no process. A folder
    /// of an import still running (its process alive) is left alone. Returns the names removed.
    @discardableResult
    static func removeAbandonedStaging(in directory: DataDirectory) -> [String] {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: directory.path) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(stagingPrefix) {
            let parts = name.dropFirst(stagingPrefix.count).split(separator: "-")
            if parts.count == 2, let pid = Int32(parts[0]), pid > 0, kill(pid, 0) == 0 || errno == EPERM {
                continue  // that import is still running
            }
            do {
                try files.removeItem(atPath: directory.file(name))
                removed.append(name)
            } catch {
                // Left for the next import; the folder holds only files of an unfinished import.
                continue
            }
        }
        return removed
    }
}
