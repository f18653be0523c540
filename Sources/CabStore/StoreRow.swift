import CabPostgres
import CabSQLite

/// What row decoders read, whichever database the row came from (SQLite's typed columns or PostgreSQL's text
/// values), so that each table's mapping is written once (`BookingRow.decode`).
protocol StoreRow {
    func string(_ index: Int32) -> String
    func optionalString(_ index: Int32) -> String?
    func int64(_ index: Int32) -> Int64
    func int(_ index: Int32) -> Int
    func double(_ index: Int32) -> Double
    func optionalDouble(_ index: Int32) -> Double?
    func optionalInt64(_ index: Int32) -> Int64?
    func isNull(_ index: Int32) -> Bool
}

extension SQLiteRow: StoreRow {}

/// A PostgreSQL row read through `StoreRow`. Every column SwiftCab reads this way is declared `bigint`,
/// `double precision` or `text` (`PostgresSchema`), so a value that does not parse as its column's type is a
/// broken invariant of the server, not input, and traps.
struct PostgresStoreRow: StoreRow {
    let row: PostgresRow

    func string(_ index: Int32) -> String { row.string(Int(index)) ?? "" }
    func optionalString(_ index: Int32) -> String? { row.string(Int(index)) }
    func int64(_ index: Int32) -> Int64 { optionalInt64(index) ?? 0 }
    func int(_ index: Int32) -> Int { Int(int64(index)) }
    func double(_ index: Int32) -> Double { optionalDouble(index) ?? 0 }
    func isNull(_ index: Int32) -> Bool { row.isNull(Int(index)) }

    func optionalInt64(_ index: Int32) -> Int64? {
        guard let text = row.string(Int(index)) else { return nil }
        guard let value = Int64(text) else { preconditionFailure("column \(index) of a bigint column is '\(text)'") }
        return value
    }

    func optionalDouble(_ index: Int32) -> Double? {
        guard let text = row.string(Int(index)) else { return nil }
        guard let value = Double(text) else { preconditionFailure("column \(index) of a double column is '\(text)'") }
        return value
    }
}

extension PostgresValue {
    /// The same value as a PostgreSQL parameter, so a row's values are listed once for both databases.
    init(_ value: SQLiteValue) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .int(i)
        case .real(let d): self = .double(d)
        case .text(let s): self = .text(s)
        case .blob(let b): self = .bytes(b)
        }
    }

    /// The values of a row written for SQLite (`BookingRow.values`), as PostgreSQL parameters.
    static func from(_ values: [any SQLiteBindable]) -> [PostgresValue] { values.map { PostgresValue($0.sqliteValue) } }
}
