import CabBench
import CabStore
import Foundation

/// `cab bench store --postgres URL`: durable bookings/s with p50/p99 at 64 concurrent callers and location
/// history rows/s, straight against the stores (no HTTP), SQLite (a fresh temporary file) and PostgreSQL side
/// by side in one run (`PostgresStoreBenchmark`).
enum StoreBenchCommand {
    static let flags: [Arguments.Flag] = [
        .init(
            name: "postgres", valueName: "URL",
            help: "PostgreSQL to measure (default $CAB_POSTGRES_URL); use an empty database"),
        .init(name: "writers", valueName: "N", help: "concurrent callers creating bookings (default 64)"),
        .init(name: "bookings", valueName: "N", help: "bookings per caller (default 100)"),
        .init(name: "rows", valueName: "N", help: "location history rows (default 200000)"),
        .init(
            name: "pg-writers", valueName: "N", help: "PostgreSQL writer threads, each committing batches (default 4)"),
        .init(name: "json", valueName: nil, help: "print one JSON object"),
    ]

    static let usage = """
        usage: cab bench store --postgres URL [--writers N] [--bookings N] [--rows N] [--pg-writers N] [--json]

        Creates N bookings per caller from --writers threads on a fresh SQLite store, then on PostgreSQL, each
        durable before its call returns, and appends location history in batches of 500; prints bookings/s,
        p50/p99 per booking, bookings per commit and rows/s for both.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard let url = args.value("postgres") ?? ProcessInfo.processInfo.environment["CAB_POSTGRES_URL"] else {
            Console.fail("bench store needs --postgres URL (or CAB_POSTGRES_URL)\n\n\(usage)")
        }
        let writers = args.integer("writers", default: 64, in: 1...1_024)
        let bookings = args.integer("bookings", default: 100, in: 1...100_000)
        let rows = args.integer("rows", default: 200_000, in: 0...100_000_000)
        let pgWriters = args.integer("pg-writers", default: 4, in: 1...64)
        var template = Array(temporaryPath("cab-bench-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { Console.fail("cannot create a temporary directory", code: 73) }
        let directory = String(cString: made)
        // best effort: a leftover temp dir is harmless
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let figures = try PostgresStoreBenchmark.run(
                sqliteDirectory: directory, conninfo: url, writers: writers, bookingsPerWriter: bookings,
                locationRows: rows,
                postgresWriters: pgWriters)
            var object: [String: Any] = ["build": BenchFormat.buildMode]
            var lines = [
                "cab bench store (\(BenchFormat.buildMode) build, \(writers) callers, \(writers * bookings) bookings each store)"
            ]
            for f in figures {
                object[f.store] = [
                    "bookings_per_s": BenchFormat.round(f.bookingsPerSecond, 0),
                    "p50_ms": BenchFormat.round(f.p50Milliseconds, 2),
                    "p99_ms": BenchFormat.round(f.p99Milliseconds, 2),
                    "bookings_per_commit": BenchFormat.round(f.bookingsPerCommit, 1),
                    "location_rows_per_s": BenchFormat.round(f.locationRowsPerSecond, 0),
                ]
                lines.append(
                    "\(f.store.padding(toLength: 9, withPad: " ", startingAt: 0)) \(BenchFormat.rate(f.bookingsPerSecond)) bookings/s, "
                        + "p50 \(BenchFormat.round(f.p50Milliseconds, 2)) ms, p99 \(BenchFormat.round(f.p99Milliseconds, 2)) ms, "
                        + "\(BenchFormat.round(f.bookingsPerCommit, 1)) per commit; "
                        + "location history \(BenchFormat.rate(f.locationRowsPerSecond)) rows/s")
            }
            Console.line(args.has("json") ? BenchFormat.jsonLine(object) : lines.joined(separator: "\n"))
        } catch let error as StoreError where error.code == .misconfigured {
            Console.fail(error.message, code: 64)
        } catch {
            Console.fail("bench store failed: \(error)", code: 70)
        }
        exitProcess(0)
    }
}
