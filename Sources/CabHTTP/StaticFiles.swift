#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves the files under a directory: `index.html` for directories, content types by extension, a size bound,
/// `Cache-Control`. Paths with `..`, `.` or hidden segments, NUL bytes or backslashes are answered 404, and so
/// is a symbolic link that leads out of the root. (A `%00` in the request is refused by `HTTPServer` itself.)
///
/// ```swift
/// let web = StaticFiles(root: "Public")
/// router.get("/{path*}", handler: web.handler())
/// router.get("/vendor/leaflet/{path*}", handler: StaticFiles(root: "/usr/share/javascript/leaflet").handler())
/// ```
public struct StaticFiles: Sendable {
    /// The directory served.
    public let root: String
    /// Files larger than this are answered 404 rather than read.
    public let maxFileBytes: Int
    /// The `Cache-Control` value sent with every file.
    public let cacheControl: String

    /// Serves `root`; files up to `maxFileBytes` (16 MiB by default).
    public init(root: String, maxFileBytes: Int = 16 << 20, cacheControl: String = "public, max-age=300") {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        self.maxFileBytes = maxFileBytes
        self.cacheControl = cacheControl
    }

    /// A handler serving the path in the route's rest parameter `parameter` (e.g. `{path*}`).
    public func handler(parameter: String = "path") -> HTTPHandler {
        { request in try response(forPath: request.pathParameters[parameter] ?? "") }
    }

    /// The response for `relativePath` (already percent-decoded) under `root`.
    public func response(forPath relativePath: String) throws(HTTPError) -> HTTPResponse {
        let notFound = HTTPError.notFound("No file at /\(relativePath).")
        let segments = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        for segment in segments where segment.hasPrefix(".") || segment.contains("\0") || segment.contains("\\") {
            throw notFound
        }
        var path = ([root] + segments.map(String.init)).joined(separator: "/")
        var info = stat()
        guard stat(path, &info) == 0 else { throw notFound }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            path += "/index.html"
            guard stat(path, &info) == 0 else { throw notFound }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= maxFileBytes else { throw notFound }
        // A symbolic link may point anywhere: the file served must resolve to a place inside the root.
        guard let resolved = Self.realPath(path), let resolvedRoot = Self.realPath(root),
            resolved.hasPrefix(resolvedRoot == "/" ? "/" : resolvedRoot + "/")
        else { throw notFound }
        guard let bytes = Self.read(resolved, limit: maxFileBytes) else { throw notFound }
        var response = HTTPResponse.bytes(bytes, contentType: Self.contentType(forPath: path))
        response.headers.append(("Cache-Control", cacheControl))
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        return response
    }

    /// The content type for a file name's extension; `application/octet-stream` when unknown.
    public static func contentType(forPath path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json"
        case "webmanifest": return "application/manifest+json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// `path` with every symbolic link, `.` and `..` resolved (`realpath`); nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads at most `limit` bytes of the regular file at `path`; nil if it cannot be opened or grew past `limit`.
    private static func read(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { return nil }
        }
    }
}
