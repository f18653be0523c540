import CHiredis
import Glibc

/// Where a Redis server listens: `redis://host:port[/db]` or `unix:///path/to.sock[?db=N]`.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// TCP or a Unix socket.
    public enum Address: Sendable, Equatable {
        /// A host and port.
        case tcp(host: String, port: Int)
        /// A Unix socket's path.
        case unix(path: String)
    }

    /// The address.
    public let address: Address
    /// The logical database (`SELECT`), 0 by default.
    public let database: Int

    /// Creates an endpoint.
    public init(address: Address, database: Int = 0) {
        self.address = address
        self.database = database
    }

    /// Parses a URL; nil when it is neither form.
    public init?(url: String) {
        if url.hasPrefix("unix://") {
            var rest = Substring(url.dropFirst("unix://".count))
            var db = 0
            if let q = rest.firstIndex(of: "?") {
                let query = rest[rest.index(after: q)...]
                rest = rest[..<q]
                guard query.hasPrefix("db="), let n = Int(query.dropFirst(3)), n >= 0 else { return nil }
                db = n
            }
            guard rest.hasPrefix("/") else { return nil }
            self.init(address: .unix(path: String(rest)), database: db)
        } else if url.hasPrefix("redis://") {
            var rest = Substring(url.dropFirst("redis://".count))
            var db = 0
            if let slash = rest.firstIndex(of: "/") {
                let tail = rest[rest.index(after: slash)...]
                rest = rest[..<slash]
                if !tail.isEmpty {
                    guard let n = Int(tail), n >= 0 else { return nil }
                    db = n
                }
            }
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
            let port = parts.count == 2 ? Int(parts[1]) : 6379
            guard let port, (1...65535).contains(port) else { return nil }
            self.init(address: .tcp(host: String(host), port: port), database: db)
        } else {
            return nil
        }
    }

    public var description: String {
        switch address {
        case .tcp(let host, let port): "redis://\(host):\(port)/\(database)"
        case .unix(let path): "unix://\(path)?db=\(database)"
        }
    }
}

/// An argument of a command, sent binary-safe (`redisCommandArgv`): commands are never built from format strings.
public protocol RedisArgument {
    /// The bytes sent.
    var redisBytes: [UInt8] { get }
}

extension String: RedisArgument { public var redisBytes: [UInt8] { Array(utf8) } }
extension Substring: RedisArgument { public var redisBytes: [UInt8] { Array(utf8) } }
extension Int: RedisArgument { public var redisBytes: [UInt8] { Array(String(self).utf8) } }
extension Int64: RedisArgument { public var redisBytes: [UInt8] { Array(String(self).utf8) } }
extension Array: RedisArgument where Element == UInt8 { public var redisBytes: [UInt8] { self } }

/// One blocking connection to Redis (a hiredis `redisContext`). Not thread-safe: one thread at a time (the
/// owner serialises use). After a connection error it is dead: make a new one (`RedisClient` does).
///
/// `@unchecked Sendable`: hiredis contexts may move between threads when used by one at a time, which every
/// owner (`RedisClient`'s lock, a reader's own thread) guarantees.
public final class RedisConnection: @unchecked Sendable {
    private let context: UnsafeMutablePointer<redisContext>
    /// Where it is connected.
    public let endpoint: RedisEndpoint

    /// Connects (`redisConnectWithTimeout`/`redisConnectUnixWithTimeout`) and selects the endpoint's database.
    /// `timeoutMilliseconds` bounds the connect and every later read and write (0: no bound, for blocking reads).
    public init(_ endpoint: RedisEndpoint, timeoutMilliseconds: Int = 2_000) throws(RedisError) {
        _ = brokenPipesIgnored
        let tv = timeval(tv_sec: timeoutMilliseconds / 1000, tv_usec: (timeoutMilliseconds % 1000) * 1000)
        let made: UnsafeMutablePointer<redisContext>? =
            switch endpoint.address {
            case .tcp(let host, let port): redisConnectWithTimeout(host, Int32(port), tv)
            case .unix(let path): redisConnectUnixWithTimeout(path, tv)
            }
        guard let made else { throw RedisError(code: .connection, message: "hiredis could not allocate a context") }
        guard made.pointee.err == 0 else {
            let message = Self.errorText(made)
            redisFree(made)
            throw RedisError(code: .connection, message: "\(message) (\(endpoint))")
        }
        context = made
        self.endpoint = endpoint
        if timeoutMilliseconds > 0 { _ = redisSetTimeout(made, tv) }
        if endpoint.database != 0 {
            let reply = try command("SELECT", endpoint.database)
            if case .error(let e) = reply { throw RedisError(code: .server, message: e) }
        }
    }

    deinit { redisFree(context) }

    /// True until a connection error (then make a new connection).
    public var isHealthy: Bool { context.pointee.err == 0 }

    /// Sends one command and waits for its reply (`redisCommandArgv`). A server error is returned as
    /// `.error` (the command failed, the connection is fine); a connection failure throws.
    public func command(_ arguments: any RedisArgument...) throws(RedisError) -> RedisReply {
        try command(arguments)
    }

    /// As `command(_:...)` with an array of arguments.
    public func command(_ arguments: [any RedisArgument]) throws(RedisError) -> RedisReply {
        let raw = withArgv(arguments.map(\.redisBytes)) { argc, argv, lengths in
            redisCommandArgv(context, argc, argv, lengths)
        }
        guard let raw else { throw connectionError() }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return Self.copy(reply)
    }

    /// Sends every command before reading any reply (`redisAppendCommandArgv` then `redisGetReply`): one round
    /// trip for the batch. Replies come back in order; a failed command is an `.error` among them.
    public func pipeline(_ commands: [[any RedisArgument]]) throws(RedisError) -> [RedisReply] {
        for arguments in commands {
            let rc = withArgv(arguments.map(\.redisBytes)) { argc, argv, lengths in
                redisAppendCommandArgv(context, argc, argv, lengths)
            }
            guard rc == cab_redis_ok() else { throw connectionError() }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == cab_redis_ok(), let raw else { throw connectionError() }
            replies.append(Self.copy(raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return replies
    }

    // MARK: Internals

    private func connectionError() -> RedisError {
        let message = Self.errorText(context)
        let code: RedisError.Code = context.pointee.err == REDIS_ERR_PROTOCOL ? .proto : .connection
        return RedisError(code: code, message: message.isEmpty ? "connection lost" : message)
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }

    private func withArgv<R>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R
    ) -> R {
        var storage: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
        for a in arguments {
            offsets.append(storage.count)
            storage.append(contentsOf: a)
            lengths.append(a.count)
        }
        storage.append(0)  // never empty, so the base address is never nil
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)  // non-empty
            var pointers: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return pointers.withUnsafeMutableBufferPointer { p in
                lengths.withUnsafeBufferPointer { l in body(Int32(arguments.count), p.baseAddress!, l.baseAddress!) }
            }
        }
    }

    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let r = reply.pointee
        switch r.type {
        case cab_redis_reply_string():
            return .bulk(bytes(r.str, r.len))
        case cab_redis_reply_status():
            return .status(String(decoding: bytes(r.str, r.len), as: UTF8.self))
        case cab_redis_reply_error():
            return .error(String(decoding: bytes(r.str, r.len), as: UTF8.self))
        case cab_redis_reply_integer():
            return .integer(r.integer)
        case cab_redis_reply_array():
            var items: [RedisReply] = []
            items.reserveCapacity(r.elements)
            for i in 0..<r.elements {
                if let child = r.element[i] { items.append(copy(child)) } else { items.append(.null) }
            }
            return .array(items)
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// hiredis writes with `write(2)`, which raises SIGPIPE on a connection the server closed, and SIGPIPE's default
/// action ends the process. Ignored once, process-wide, before the first connection, so a lost server is an
/// error (`EPIPE`) rather than a crash. (`cab serve` ignores it too, for its HTTP clients.)
private let brokenPipesIgnored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
