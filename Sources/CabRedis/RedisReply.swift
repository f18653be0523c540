/// One reply of a Redis command, copied out of hiredis's reply object.
public indirect enum RedisReply: Sendable, Equatable {
    /// A bulk string (binary-safe).
    case bulk([UInt8])
    /// A status line such as `OK`.
    case status(String)
    /// An integer.
    case integer(Int64)
    /// An array of replies (`XREAD`, `EXEC`, `FCALL` returning a table).
    case array([RedisReply])
    /// The nil reply (a missing key, a blocking read that timed out).
    case null
    /// An error line such as `WRONGTYPE ...` (a failed command; other commands of a pipeline are unaffected).
    case error(String)

    /// The reply as UTF-8 text (bulk strings and statuses), nil otherwise.
    public var string: String? {
        switch self {
        case .bulk(let b): String(decoding: b, as: UTF8.self)
        case .status(let s): s
        default: nil
        }
    }

    /// The reply as an integer (integers, and bulk strings holding one), nil otherwise.
    public var integer: Int64? {
        switch self {
        case .integer(let i): i
        case .bulk: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// The elements of an array reply; empty otherwise.
    public var elements: [RedisReply] {
        if case .array(let a) = self { return a }
        return []
    }

    /// True for the nil reply.
    public var isNull: Bool { self == .null }
}
