/// A point in time: whole milliseconds since 1970-01-01T00:00:00Z (Unix time, leap seconds ignored).
///
/// The domain never reads a clock: callers pass `Instant`s in, from a `now()` closure they inject
/// (tests use a manual one). Encodes in JSON as an RFC 3339 string in UTC with milliseconds.
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch; negative before 1970.
    public var millisecondsSinceEpoch: Int64

    /// Creates an instant.
    public init(millisecondsSinceEpoch: Int64) { self.millisecondsSinceEpoch = millisecondsSinceEpoch }

    /// Creates an instant from whole seconds since the epoch.
    public init(secondsSinceEpoch: Int64) { millisecondsSinceEpoch = secondsSinceEpoch * 1000 }

    /// 1970-01-01T00:00:00Z.
    public static let epoch = Instant(millisecondsSinceEpoch: 0)

    /// This instant moved by `seconds` (may be negative).
    public func adding(seconds: Int) -> Instant {
        Instant(millisecondsSinceEpoch: millisecondsSinceEpoch + Int64(seconds) * 1000)
    }

    /// This instant moved by `milliseconds`.
    public func adding(milliseconds: Int64) -> Instant {
        Instant(millisecondsSinceEpoch: millisecondsSinceEpoch + milliseconds)
    }

    /// Milliseconds from `earlier` to this instant (negative when `earlier` is later).
    public func milliseconds(since earlier: Instant) -> Int64 {
        millisecondsSinceEpoch - earlier.millisecondsSinceEpoch
    }

    /// Orders by time.
    public static func < (a: Instant, b: Instant) -> Bool { a.millisecondsSinceEpoch < b.millisecondsSinceEpoch }

    /// RFC 3339 in UTC, e.g. `2026-11-29T23:50:36.123Z`.
    public var description: String { RFC3339.format(self) }

    /// Decodes an RFC 3339 string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let instant = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an RFC 3339 time such as 2026-05-01T12:00:00Z")
        }
        self = instant
    }

    /// Encodes as an RFC 3339 string in UTC.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(RFC3339.format(self))
    }
}
