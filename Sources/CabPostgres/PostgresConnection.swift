import CLibPQ

/// One statement and its parameters, for `PostgresConnection.pipeline`.
public struct PostgresStatement: Sendable {
    /// The SQL, with `$1`, `$2`, ... for parameters.
    public let sql: String
    /// The parameters, in order.
    public let parameters: [PostgresValue]

    /// Creates a statement.
    public init(_ sql: String, _ parameters: [any PostgresBindable] = []) {
        self.sql = sql
        self.parameters = parameters.map(\.postgresValue)
    }
}

/// One libpq connection (`PGconn`). Not thread-safe: its owner serialises use (the pool hands a connection to one
/// thread at a time). Blocking calls: use it from a thread of its own or a handler pool, never the cooperative pool.
///
/// Every statement with parameters is prepared once per connection and then executed by name
/// (`PQprepare`/`PQexecPrepared`); parameters always travel apart from the SQL.
///
/// `@unchecked Sendable`: libpq connections may move between threads as long as one thread uses them at a time,
/// which every owner (`PostgresPool`) guarantees.
public final class PostgresConnection: @unchecked Sendable {
    /// Transaction isolation levels.
    public enum Isolation: String, Sendable {
        /// PostgreSQL's default.
        case readCommitted = "READ COMMITTED"
        /// Snapshot reads, write conflicts fail with 40001.
        case repeatableRead = "REPEATABLE READ"
        /// True serializability; conflicts fail with 40001.
        case serializable = "SERIALIZABLE"
    }

    private let handle: OpaquePointer
    /// Statement names by SQL text, for this connection's session.
    private var prepared: [String: String] = [:]
    /// The connection string it was opened with (may hold a password: never log it).
    let conninfo: String

    /// Connects (`PQconnectdb`) with a libpq connection string or URL (`postgres://user:pw@host/db`, or
    /// `host=/tmp/dir dbname=cab`; several hosts with `target_session_attrs=read-write` find the primary).
    public init(conninfo: String) throws(PostgresError) {
        guard let conn = PQconnectdb(conninfo) else {
            throw PostgresError(code: .connectionFailure, message: "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(conn)))
            PQfinish(conn)
            throw PostgresError(code: Self.classifyConnectionFailure(message), message: message)
        }
        handle = conn
        self.conninfo = conninfo
    }

    deinit { PQfinish(handle) }

    /// True while the connection is usable (`PQstatus` is `CONNECTION_OK`).
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server's version as an integer, e.g. 150018 for 15.18 (`PQserverVersion`).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// Reconnects with the same parameters (`PQreset`); prepared statements are forgotten.
    public func reset() throws(PostgresError) {
        prepared.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(handle)))
            throw PostgresError(code: Self.classifyConnectionFailure(message), message: message)
        }
    }

    /// Runs one or more statements without parameters (`PQexec`, the simple protocol): DDL, `BEGIN`, `COMMIT`.
    @discardableResult
    public func execute(_ sql: String) throws(PostgresError) -> PostgresResult {
        try consume(PQexec(handle, sql))
    }

    /// Runs `sql` with `parameters` (prepared once per connection, then executed by name) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresBindable] = []) throws(PostgresError) -> PostgresResult
    {
        try query(sql, values: parameters.map(\.postgresValue))
    }

    /// As `query(_:_:)`, with values.
    @discardableResult
    public func query(_ sql: String, values: [PostgresValue]) throws(PostgresError) -> PostgresResult {
        let name = try preparedName(for: sql, parameterCount: values.count)
        return try withParameters(values) { count, pointers, lengths, formats throws(PostgresError) in
            try consume(PQexecPrepared(handle, name, count, pointers, lengths, formats, 0))
        }
    }

    /// Runs `body` in a transaction at `isolation`, committing when it returns and rolling back when it throws;
    /// on a serialization failure or deadlock (which CockroachDB and SERIALIZABLE PostgreSQL report for
    /// conflicting transactions) the whole body runs again, up to `attempts` times in all.
    public func transaction<T>(
        isolation: Isolation = .readCommitted, attempts: Int = 5, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        precondition(attempts >= 1, "a transaction needs at least one attempt")
        var attempt = 1
        while true {
            do {
                try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")  // a constant of this file, not input
                let result = try body(self)
                try execute("COMMIT")
                return result
            } catch let error as PostgresError where error.isRetryableTransaction && attempt < attempts {
                rollbackIfNeeded()
                attempt += 1
            } catch {
                rollbackIfNeeded()
                throw error
            }
        }
    }

    /// Sends every statement in one round trip (libpq's pipeline mode) and reads their results in order. With
    /// `transaction`, they are wrapped in `BEGIN`/`COMMIT` in the same round trip and stand or fall together: the
    /// first failure is thrown and nothing is kept. Without, each statement commits alone and a failure aborts
    /// the rest of the batch, whose results are the failure. Keep batches to a few hundred statements.
    public func pipeline(_ statements: [PostgresStatement], transaction: Bool) throws(PostgresError) -> [PostgresResult]
    {
        guard !statements.isEmpty else { return [] }
        guard PQenterPipelineMode(handle) == 1 else { throw lastError() }
        var sent = 0
        var sendFailure: PostgresError?
        let all = transaction ? [PostgresStatement("BEGIN")] + statements + [PostgresStatement("COMMIT")] : statements
        for statement in all {
            let ok = withParameters(statement.parameters) { count, pointers, lengths, formats in
                PQsendQueryParams(handle, statement.sql, count, nil, pointers, lengths, formats, 0) == 1
            }
            if !ok {
                sendFailure = lastError()
                break
            }
            sent += 1
        }
        if sendFailure == nil, PQpipelineSync(handle) != 1 { sendFailure = lastError() }
        // Read back whatever was sent: one result (then NULL) per statement, then the sync point.
        var results: [PostgresResult] = []
        var firstFailure: PostgresError?
        for _ in 0..<sent {
            guard let res = PQgetResult(handle) else { break }
            switch PQresultStatus(res) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                results.append(Self.copy(res))
            case PGRES_PIPELINE_ABORTED:
                break
            default:
                if firstFailure == nil { firstFailure = Self.error(from: res) }
            }
            PQclear(res)
            while let extra = PQgetResult(handle) { PQclear(extra) }  // the NULL that ends each statement's results
        }
        if sendFailure == nil {
            while let res = PQgetResult(handle) {
                let done = PQresultStatus(res) == PGRES_PIPELINE_SYNC
                PQclear(res)
                if done { break }
            }
        }
        _ = PQexitPipelineMode(handle)
        if let failure = sendFailure ?? firstFailure {
            rollbackIfNeeded()
            throw failure
        }
        return transaction ? Array(results.dropFirst().dropLast()) : results
    }

    // MARK: Internals

    /// Rolls back a transaction left open or failed; a connection that cannot is reset by its pool.
    private func rollbackIfNeeded() {
        let status = PQtransactionStatus(handle)
        if status == PQTRANS_INTRANS || status == PQTRANS_INERROR { _ = try? execute("ROLLBACK") }
    }

    private func preparedName(for sql: String, parameterCount: Int) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "cab_\(prepared.count)"
        _ = try consume(PQprepare(handle, name, sql, Int32(parameterCount), nil))
        prepared[sql] = name
        return name
    }

    /// Lays the parameters out as libpq wants them: one NUL-terminated text (or raw bytes, binary format) each,
    /// with lengths and formats, kept alive for the duration of `body`.
    private func withParameters<R, E: Error>(
        _ values: [PostgresValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) throws(E)
            -> R
    ) throws(E) -> R {
        if values.isEmpty { return try body(0, nil, nil, nil) }
        var storage: [CChar] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in values {
            switch value {
            case .null:
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
            case .bytes(let bytes):
                offsets.append(storage.count)
                storage.append(contentsOf: bytes.map { CChar(bitPattern: $0) })
                lengths.append(Int32(bytes.count))
                formats.append(1)
            default:
                // `textForm` is non-nil for every case but null and bytes, handled above.
                let utf8 = value.textForm!.utf8
                offsets.append(storage.count)
                storage.append(contentsOf: utf8.map { CChar(bitPattern: $0) })
                storage.append(0)
                lengths.append(Int32(utf8.count))
                formats.append(0)
            }
        }
        storage.append(0)  // never empty, so the base address below is never nil
        return try storage.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            let base = buffer.baseAddress!  // non-empty array (a NUL was appended)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return try pointers.withUnsafeBufferPointer { (p) throws(E) -> R in
                try lengths.withUnsafeBufferPointer { (l) throws(E) -> R in
                    try formats.withUnsafeBufferPointer { (f) throws(E) -> R in
                        try body(Int32(values.count), p.baseAddress, l.baseAddress, f.baseAddress)
                    }
                }
            }
        }
    }

    /// Turns a result into rows or an error, and frees it.
    private func consume(_ res: OpaquePointer?) throws(PostgresError) -> PostgresResult {
        guard let res else { throw lastError() }
        defer { PQclear(res) }
        switch PQresultStatus(res) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.copy(res)
        default:
            let error = Self.error(from: res)
            if error.isUnavailable || PQstatus(handle) != CONNECTION_OK { prepared.removeAll() }
            throw error
        }
    }

    private func lastError() -> PostgresError {
        let message = Self.trimmed(String(cString: PQerrorMessage(handle)))
        let code: PostgresError.Code = PQstatus(handle) == CONNECTION_OK ? .misuse : .connectionFailure
        return PostgresError(code: code, message: message.isEmpty ? "libpq call failed" : message)
    }

    private static func copy(_ res: OpaquePointer) -> PostgresResult {
        let rowCount = Int(PQntuples(res))
        let columnCount = Int(PQnfields(res))
        let columns = (0..<columnCount).map { String(cString: PQfname(res, Int32($0))) }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if PQgetisnull(res, Int32(r), Int32(c)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(res, Int32(r), Int32(c))))
                }
            }
            rows.append(PostgresRow(values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(res))) ?? 0
        return PostgresResult(columns: columns, rows: rows, affectedRows: affected)
    }

    private static func error(from res: OpaquePointer) -> PostgresError {
        func field(_ code: Int32) -> String? { PQresultErrorField(res, code).map { String(cString: $0) } }
        let state = field(cab_pq_diag_sqlstate()) ?? PostgresError.Code.connectionFailure.rawValue
        let message = field(cab_pq_diag_message_primary()) ?? trimmed(String(cString: PQresultErrorMessage(res)))
        return PostgresError(
            code: .init(state), message: message, detail: field(cab_pq_diag_message_detail()),
            constraint: field(cab_pq_diag_constraint_name()))
    }

    /// libpq reports a failed login as text only (no SQLSTATE on the connection); the server's messages for the
    /// refusals an operator can fix are stable, so they are recognised by their words.
    static func classifyConnectionFailure(_ message: String) -> PostgresError.Code {
        if message.contains("password authentication failed") || message.contains("no password supplied") {
            return .invalidPassword
        }
        if message.contains("database \"") && message.contains("does not exist") { return .invalidCatalogName }
        if message.contains("role \"") && message.contains("does not exist") { return .invalidAuthorization }
        if message.contains("no pg_hba.conf entry") { return .invalidAuthorization }
        if message.contains("the database system is starting up") || message.contains("shutting down")
            || message.contains("in recovery mode")
        {
            return .cannotConnectNow
        }
        return .connectionFailure
    }

    static func trimmed(_ text: String) -> String {
        var lines = text.split(separator: "\n").map { $0.trimmingPrefix("FATAL:").drop { $0 == " " } }
        lines.removeAll { $0.isEmpty }
        return lines.map(String.init).joined(separator: "; ")
    }
}
