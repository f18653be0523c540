import CabCore
import CabPostgres

extension StoreError.Code {
    /// The database cannot be reached or is not taking writes right now (restarting, failing over, every
    /// connection busy): the request may be sent again in a moment (HTTP 503 with `Retry-After`).
    public static let unavailable = Self("unavailable")
    /// The database refused the login for good: a wrong password, an unknown user or a missing database. The
    /// message says which; retrying will not help (`cab serve` exits 64).
    public static let misconfigured = Self("misconfigured")
}

extension StoreError {
    /// Passes domain and store errors through, and turns PostgreSQL's into store errors: unavailable
    /// (connection lost, server shutting down or starting, a read-only standby, no free connection), a broken
    /// constraint, a refused login, or a plain database failure.
    static func translatingPostgres(_ error: any Error) -> any Error {
        guard let pg = error as? PostgresError else { return error }
        if pg.isUnavailable || pg.code == .poolTimeout {
            return StoreError(
                .unavailable, "The database is unavailable (\(pg.message)); try again in a moment.", underlying: pg)
        }
        if pg.isConfigurationError { return misconfigured(pg) }
        if pg.code.rawValue.hasPrefix("23") {
            return StoreError(.constraint, "The data breaks a rule of the store: \(pg.message).", underlying: pg)
        }
        return StoreError(.database, "The database failed: \(pg.message).", underlying: pg)
    }

    /// A refused login, in words that say what to fix in the URL.
    static func misconfigured(_ pg: PostgresError) -> StoreError {
        let what: String
        switch pg.code {
        case .invalidPassword: what = "the password in the PostgreSQL URL is wrong"
        case .invalidCatalogName: what = "the database named in the PostgreSQL URL does not exist (create it first)"
        default: what = "PostgreSQL does not let this user connect (unknown role or pg_hba.conf)"
        }
        return StoreError(.misconfigured, "PostgreSQL refused the login: \(what): \(pg.message).", underlying: pg)
    }
}
