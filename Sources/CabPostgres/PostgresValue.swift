/// A parameter of a statement, sent apart from the SQL text (never spliced into it).
///
/// Everything but `bytes` goes in PostgreSQL's text format, which every type accepts from its literal; `bytes`
/// goes in binary format for a `bytea` parameter.
public enum PostgresValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A text value.
    case text(String)
    /// A 64-bit integer (for `bigint`, `integer`, `smallint`).
    case int(Int64)
    /// A double (for `double precision`).
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// Raw bytes (for `bytea`).
    case bytes([UInt8])

    /// The value in PostgreSQL's text format, or nil for NULL and bytes.
    var textForm: String? {
        switch self {
        case .null, .bytes: nil
        case .text(let s): s
        case .int(let i): String(i)
        case .double(let d): d.isNaN ? "NaN" : d.isInfinite ? (d > 0 ? "Infinity" : "-Infinity") : "\(d)"
        case .bool(let b): b ? "t" : "f"
        }
    }
}

extension PostgresValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// A value that can be a statement parameter.
public protocol PostgresBindable {
    /// The parameter this value is sent as.
    var postgresValue: PostgresValue { get }
}

extension String: PostgresBindable { public var postgresValue: PostgresValue { .text(self) } }
extension Int: PostgresBindable { public var postgresValue: PostgresValue { .int(Int64(self)) } }
extension Int64: PostgresBindable { public var postgresValue: PostgresValue { .int(self) } }
extension Int32: PostgresBindable { public var postgresValue: PostgresValue { .int(Int64(self)) } }
extension Double: PostgresBindable { public var postgresValue: PostgresValue { .double(self) } }
extension Bool: PostgresBindable { public var postgresValue: PostgresValue { .bool(self) } }
extension PostgresValue: PostgresBindable { public var postgresValue: PostgresValue { self } }
extension Optional: PostgresBindable where Wrapped: PostgresBindable {
    public var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}
