import CabCore
import CabPostgres
import CabSQLite

/// Copies a SQLite city into PostgreSQL (`cab migrate --from DIR --postgres URL`): accounts and tokens,
/// bookings, their history and idempotency keys, location history, declines, saved places and server secrets, table by table in key order, in
/// batches that each commit on their own. Every insert is `ON CONFLICT DO NOTHING`, so a copy that was
/// interrupted runs again from the start and skips what is there; at the end the counts of both sides are
/// compared. The SQLite file is only read (it may be served meanwhile; rows written after a table was copied
/// are picked up by running the copy again).
public struct StoreCopier: Sendable {
    /// One table's outcome.
    public struct TableReport: Sendable, Equatable {
        /// The table.
        public let table: String
        /// Rows in the SQLite file.
        public let source: Int
        /// Rows in PostgreSQL afterwards.
        public let target: Int
        /// Rows this run inserted (the rest were there already).
        public let inserted: Int

        /// True when PostgreSQL holds every row of the source.
        public var complete: Bool { target >= source }
    }

    /// A table to copy: its columns in SQLite (as selected) and in PostgreSQL (as inserted), and its key.
    struct Table {
        let name: String
        let select: String
        let insertColumns: String
        let key: String
        let columnCount: Int
        /// The selected column holding the booking id the row's `shard` is made from (nil: no shard column).
        var shardFrom: Int? = nil
    }

    /// Tables in the order foreign keys need. Bookings get their shard; history rows their per-booking step.
    static let tables: [Table] = [
        Table(
            name: "riders", select: "id, name, created_ms", insertColumns: "id, name, created_ms", key: "id",
            columnCount: 3),
        Table(
            name: "drivers", select: "id, name, vehicle, plate, vehicle_type, created_ms",
            insertColumns: "id, name, vehicle, plate, vehicle_type, created_ms", key: "id", columnCount: 6),
        Table(
            name: "dispatchers", select: "id, name, created_ms", insertColumns: "id, name, created_ms", key: "id",
            columnCount: 3),
        Table(
            name: "tokens", select: "hash, rider_id, driver_id, dispatcher_id, created_ms, revoked_ms",
            insertColumns: "hash, rider_id, driver_id, dispatcher_id, created_ms, revoked_ms", key: "hash",
            columnCount: 6),
        Table(
            name: "bookings", select: BookingRow.columns, insertColumns: BookingRow.columns, key: "id",
            columnCount: BookingRow.columns.split(separator: ",").count, shardFrom: 0),
        Table(
            name: "booking_history",
            select: "booking_id, row_number() OVER (PARTITION BY booking_id ORDER BY seq), from_status, to_status, "
                + "event, actor_role, actor_id, at_ms, reason",
            insertColumns: "booking_id, step, from_status, to_status, event, actor_role, actor_id, at_ms, reason",
            key: "seq", columnCount: 9),
        Table(
            name: "idempotency_keys", select: "rider_id, key, fingerprint, booking_id, created_ms",
            insertColumns: "rider_id, key, fingerprint, booking_id, created_ms", key: "rider_id, key", columnCount: 5),
        Table(
            name: "driver_locations", select: "driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg",
            insertColumns: "driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg",
            key: "driver_id, time_ms",
            columnCount: 7),
        Table(
            name: "dispatch_declines", select: "booking_id, driver_id, at_ms",
            insertColumns: "booking_id, driver_id, at_ms",
            key: "booking_id, driver_id", columnCount: 3, shardFrom: 0),
        Table(
            name: "saved_places", select: "rider_id, label_key, label, name, lat, lon, address, updated_ms",
            insertColumns: "rider_id, label_key, label, name, lat, lon, address, updated_ms",
            key: "rider_id, label_key",
            columnCount: 8),
        Table(
            name: "server_secrets", select: "name, value, created_ms", insertColumns: "name, value, created_ms",
            key: "name",
            columnCount: 3),
    ]

    /// What a SQLite store holds that is not copied (said in the report): nothing since schema v2.
    public static let notCopied: [String] = []

    /// Rows per batch (one transaction, one pipelined round trip).
    public var batchSize: Int

    /// Creates a copier.
    public init(batchSize: Int = 1_000) {
        precondition(batchSize > 0, "a batch holds at least one row")
        self.batchSize = batchSize
    }

    /// Copies `sqlitePath` into the (migrated) database at `conninfo`; `progress` hears each table's report.
    public func copy(
        from sqlitePath: String, to conninfo: String, progress: (TableReport) -> Void = { _ in }
    ) throws -> [TableReport] {
        let source = try SQLiteDatabase(path: sqlitePath, mode: .readOnly)
        _ = try PostgresStore.migrate(conninfo: conninfo)
        let target = try PostgresConnection(conninfo: conninfo)
        var reports: [TableReport] = []
        for table in Self.tables {
            let report = try copy(table, from: source, to: target)
            progress(report)
            reports.append(report)
        }
        return reports
    }

    private func copy(_ table: Table, from source: SQLiteDatabase, to target: PostgresConnection) throws -> TableReport
    {
        let sharded = table.shardFrom != nil
        let columns = (sharded ? "shard, " : "") + table.insertColumns
        let count = table.columnCount + (sharded ? 1 : 0)
        let placeholders = (1...count).map { "$\($0)" }.joined(separator: ", ")
        // Table and column names are constants of this file; values are parameters.
        let insert = "INSERT INTO \(table.name) (\(columns)) VALUES (\(placeholders)) ON CONFLICT DO NOTHING"
        let sourceCount = try source.query("SELECT count(*) FROM \(table.name)") { $0.int(0) }.first ?? 0
        var inserted = 0
        var offset = 0
        while true {
            // Ordered by the key, a batch at a time (OFFSET on a read-only snapshot of a city is fine for a
            // one-off copy; the window function in booking_history needs the whole table's order).
            let rows: [[SQLiteValue]] = try source.query(
                "SELECT \(table.select) FROM \(table.name) ORDER BY \(table.key) LIMIT ? OFFSET ?", [batchSize, offset]
            ) { r in (0..<Int32(table.columnCount)).map { r.value($0) } }
            if rows.isEmpty { break }
            let statements = try rows.map { row -> PostgresStatement in
                var values = row.map(PostgresValue.init)
                if let column = table.shardFrom {
                    guard case .text(let id) = row[column], let booking = BookingID(id) else {
                        throw StoreError(.corruptRow, "A row of \(table.name) names no valid booking id.")
                    }
                    values.insert(.int(Int64(PostgresStore.shard(of: booking))), at: 0)
                }
                return PostgresStatement(insert, values)
            }
            inserted += try target.pipeline(statements, transaction: true).reduce(0) { $0 + $1.affectedRows }
            offset += rows.count
        }
        let targetCount = try target.query("SELECT count(*) FROM \(table.name)").first?.int(0) ?? 0
        return TableReport(table: table.name, source: sourceCount, target: targetCount, inserted: inserted)
    }
}
