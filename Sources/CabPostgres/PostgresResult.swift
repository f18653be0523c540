/// The rows of one statement, copied out of libpq's result (so they outlive it), in text format.
public struct PostgresResult: Sendable {
    /// Column names, in order.
    public let columns: [String]
    /// Each row's values; nil is SQL NULL.
    public let rows: [PostgresRow]
    /// Rows inserted, updated or deleted (`PQcmdTuples`); 0 for a query.
    public let affectedRows: Int

    /// The first row, if any.
    public var first: PostgresRow? { rows.first }
}

/// One row of a result. Accessors throw `misuse` when a value does not parse as the asked type.
public struct PostgresRow: Sendable {
    /// The values in text format; nil is SQL NULL.
    public let values: [String?]

    /// True when column `index` is NULL.
    public func isNull(_ index: Int) -> Bool { values[index] == nil }

    /// Column `index` as text, nil for NULL.
    public func string(_ index: Int) -> String? { values[index] }

    /// Column `index` as a 64-bit integer, nil for NULL.
    public func int64(_ index: Int) throws(PostgresError) -> Int64? {
        guard let text = values[index] else { return nil }
        guard let value = Int64(text) else {
            throw PostgresError(code: .misuse, message: "column \(index) is not an integer")
        }
        return value
    }

    /// Column `index` as an `Int`, nil for NULL.
    public func int(_ index: Int) throws(PostgresError) -> Int? { try int64(index).map { Int($0) } }

    /// Column `index` as a double, nil for NULL.
    public func double(_ index: Int) throws(PostgresError) -> Double? {
        guard let text = values[index] else { return nil }
        guard let value = Double(text) else {
            throw PostgresError(code: .misuse, message: "column \(index) is not a number")
        }
        return value
    }

    /// Column `index` as a boolean (`t`/`f`), nil for NULL.
    public func bool(_ index: Int) throws(PostgresError) -> Bool? {
        switch values[index] {
        case nil: return nil
        case "t": return true
        case "f": return false
        default: throw PostgresError(code: .misuse, message: "column \(index) is not a boolean")
        }
    }

    /// Column `index` (a `bytea`, in PostgreSQL's hex text format `\x0a1b...`) as bytes, nil for NULL.
    public func bytes(_ index: Int) throws(PostgresError) -> [UInt8]? {
        guard let text = values[index] else { return nil }
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            throw PostgresError(code: .misuse, message: "column \(index) is not bytea in hex format")
        }
        var out: [UInt8] = []
        out.reserveCapacity((utf8.count - 2) / 2)
        var i = 2
        while i < utf8.count {
            guard let hi = hexNibble(utf8[i]), let lo = hexNibble(utf8[i + 1]) else {
                throw PostgresError(code: .misuse, message: "column \(index) has a bad hex digit")
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

private func hexNibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
