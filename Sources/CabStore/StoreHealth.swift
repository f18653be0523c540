import CabCore
import CabSQLite
import Synchronization

/// What the store's own failures say about it, for `/healthz`, `/readyz`, `/metrics` and the log: the writer and
/// the readers report every SQLite failure here, the writer every commit.
///
/// | problem | seen when | clears |
/// | --- | --- | --- |
/// | `disk_full` | a write fails with `SQLITE_FULL` | on the next commit that reaches the disk once the disk has `roomToRecoverBytes` free (a nearly full disk lets small writes through between refusals: without the margin the store would flap between failing and recovered) |
/// | `io_error` | a read or write fails with `SQLITE_IOERR` | on the next commit |
/// | `corrupt` | a read or write fails with `SQLITE_CORRUPT` or `SQLITE_NOTADB` | never: the file needs an operator |
/// | `database_unavailable` | PostgreSQL cannot be reached or is not taking writes | when it answers again |
///
/// Other failures (a broken constraint, a busy lock) are the request's, not the store's. Observers hear of each
/// change of state once (not of every failure), with a message that says what to do.
public final class StoreHealth: Sendable {
    /// What is wrong with the store.
    public enum Problem: String, Sendable, Hashable, CaseIterable {
        case diskFull = "disk_full"
        case ioError = "io_error"
        case corrupt
        case unavailable = "database_unavailable"
    }

    /// The store's state as of the last failure or commit.
    public struct Snapshot: Sendable, Hashable {
        /// Nil while the store is healthy.
        public var problem: Problem?
        /// What happened and what to do (empty while healthy).
        public var detail: String
        /// When the problem was first seen.
        public var since: Instant?
        /// Failures seen since the problem began.
        public var failures: Int

        /// Whether the store can take requests.
        public var isHealthy: Bool { problem == nil }
    }

    private let state = Mutex(Snapshot(problem: nil, detail: "", since: nil, failures: 0))
    private let observers = Mutex<[@Sendable (Snapshot) -> Void]>([])
    private let now: @Sendable () -> Instant
    /// The bytes free on the disk holding the store, or nil where that is not known (PostgreSQL).
    private let freeBytes: @Sendable () -> Int?
    /// What the store is (a file path, or a database named without its password), for logs.
    public let path: String
    /// The free space a full disk must have again before the store counts as recovered: 1 MiB, a few WAL commits.
    public static let roomToRecoverBytes = 1 << 20

    init(path: String, now: @escaping @Sendable () -> Instant, freeBytes: @escaping @Sendable () -> Int? = { nil }) {
        self.path = path
        self.now = now
        self.freeBytes = freeBytes
    }

    /// The current state.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Calls `observer` on every change of state (from the thread that saw it).
    public func observe(_ observer: @escaping @Sendable (Snapshot) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// A SQLite failure on a read or a write.
    func record(_ error: any Error) {
        let sqlite = (error as? SQLiteError) ?? ((error as? StoreError)?.underlying as? SQLiteError)
        guard let sqlite, let problem = Self.problem(sqlite.code) else { return }
        let changed: Snapshot? = state.withLock { current in
            current.failures += 1
            // A damaged file stays reported as damaged whatever fails next.
            guard current.problem != problem, current.problem != .corrupt else { return nil }
            current = Snapshot(
                problem: problem, detail: Self.advice(problem, path: path, sqlite: sqlite), since: now(), failures: 1)
            return current
        }
        if let changed { notify(changed) }
    }

    /// A commit reached the disk: an I/O error is over, and so is a full disk once it has room again.
    func commitSucceeded() {
        let stillFull: Bool
        if state.withLock({ $0.problem }) == .diskFull, let free = freeBytes() {
            stillFull = free < Self.roomToRecoverBytes
        } else {
            stillFull = false
        }
        let changed: Snapshot? = state.withLock { current in
            guard let problem = current.problem, problem != .corrupt else { return nil }
            if problem == .diskFull && stillFull { return nil }
            current = Snapshot(problem: nil, detail: "", since: nil, failures: 0)
            return current
        }
        if let changed { notify(changed) }
    }

    /// The database server stopped answering (PostgreSQL restarting, unreachable, a standby): reported once
    /// until it answers again.
    func databaseUnavailable(_ reason: String) {
        let changed: Snapshot? = state.withLock { current in
            current.failures += 1
            guard current.problem == nil else { return nil }
            current = Snapshot(
                problem: .unavailable,
                detail: "The database at \(path) is unavailable (\(reason)): requests that need it answer 503 and may "
                    + "be retried. Check that PostgreSQL runs and is reachable; the store reconnects by itself.",
                since: now(), failures: 1)
            return current
        }
        if let changed { notify(changed) }
    }

    /// The database server answered again.
    func databaseAvailable() {
        let changed: Snapshot? = state.withLock { current in
            guard current.problem == .unavailable else { return nil }
            current = Snapshot(problem: nil, detail: "", since: nil, failures: 0)
            return current
        }
        if let changed { notify(changed) }
    }

    private func notify(_ snapshot: Snapshot) {
        for observer in observers.withLock({ $0 }) { observer(snapshot) }
    }

    static func problem(_ code: SQLiteError.Code) -> Problem? {
        switch code.rawValue {
        case 13: .diskFull  // SQLITE_FULL
        case 10: .ioError  // SQLITE_IOERR
        case SQLiteError.Code.corrupt.rawValue, SQLiteError.Code.notADatabase.rawValue: .corrupt
        default: nil
        }
    }

    static func advice(_ problem: Problem, path: String, sqlite: SQLiteError) -> String {
        switch problem {
        case .diskFull:
            "The disk holding \(path) is full (\(sqlite.message)): bookings and trip steps are refused with 503. "
                + "Free space on that disk; the store recovers on its own with the next write once 1 MiB is free."
        case .ioError:
            "The disk holding \(path) returned an I/O error (\(sqlite.message)). Check the disk (dmesg, SMART) "
                + "and free space; the store recovers on the next write that succeeds."
        case .corrupt:
            "\(path) is damaged (\(sqlite.message)). Stop cab serve, keep a copy of the data directory, check it "
                + "with `sqlite3 \(path) 'PRAGMA integrity_check'`, and restore the file from a backup "
                + "(or `sqlite3 \(path) .recover`); cab serve must be restarted afterwards."
        case .unavailable: "The database at \(path) is unavailable (\(sqlite.message))."
        }
    }
}
