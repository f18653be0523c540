import Foundation

extension SQLiteStore {
    /// The bytes free to this process on the disk holding the store at `path` (`statvfs` through
    /// `attributesOfFileSystem`), or nil when the disk cannot be asked.
    static func freeBytes(besides path: String) -> Int? {
        let directory = (path as NSString).deletingLastPathComponent
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory.isEmpty ? "." : directory)
        return (attributes?[.systemFreeSize] as? NSNumber)?.intValue
    }
}
