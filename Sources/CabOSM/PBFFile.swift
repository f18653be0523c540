#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file read with `pread` at explicit offsets, so a reader can restart without seeking.
final class PBFFile {
    /// The path it was opened from, for messages.
    let path: String
    /// Its size in bytes when opened.
    let size: Int
    private let descriptor: Int32

    /// Opens `path` read-only (`open`, `fstat`).
    init(path: String) throws(OSMError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.systemError("cannot open \(path)") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = Self.systemError("cannot stat \(path)")
            close(fd)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw OSMError(.io, "cannot read \(path): not a regular file")
        }
        self.descriptor = fd
        self.size = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes at `offset` into the start of `buffer` (`pread`), growing it if needed;
    /// returns how many bytes were read, fewer only at the end of the file.
    func read(into buffer: inout [UInt8], count: Int, at offset: Int) throws(OSMError) -> Int {
        if buffer.count < count { buffer = [UInt8](repeating: 0, count: max(count, buffer.count * 2)) }
        var done = 0
        var failure: Int32 = 0
        buffer.withUnsafeMutableBytes { raw in
            while done < count {
                let n = pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset + done))
                if n > 0 {
                    done += n
                } else if n == 0 {
                    return
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        guard failure == 0 else {
            throw OSMError(.io, "cannot read \(path) at byte \(offset + done): \(Self.describe(failure))",
                byteOffset: offset + done)
        }
        return done
    }

    private static func systemError(_ what: String) -> OSMError {
        OSMError(.io, "\(what): \(describe(errno))")
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
