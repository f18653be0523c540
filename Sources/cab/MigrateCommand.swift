import ArgumentParser
import CabImport
import CabPostgres
import CabStore
import Foundation

/// `cab migrate --postgres URL [--from DIR]`: brings a PostgreSQL database's schema up to date, and with
/// `--from` copies a SQLite city into it.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring a PostgreSQL schema up to date, or copy a SQLite city into PostgreSQL (--from).",
        discussion: """
            Applies the PostgreSQL schema's missing migrations (forward only; nodes starting at once migrate once). \
            With --from, then copies the data directory's accounts, tokens, bookings with their history and \
            idempotency keys, and location history into PostgreSQL, table by table; rows already there are \
            skipped, so an interrupted copy is resumed by running it again. Prints each table's counts and fails \
            (exit 65) when PostgreSQL holds fewer rows than the SQLite file.
            """)

    @Option(help: ArgumentHelp("libpq URL or connection string (default $CAB_POSTGRES_URL)", valueName: "URL"))
    var postgres: String?
    @Option(help: ArgumentHelp("a data directory whose SQLite store to copy into PostgreSQL", valueName: "DIR"))
    var from: String?
    @OptionGroup var logLevel: LogLevelOption

    /// `--postgres`, else `$CAB_POSTGRES_URL`.
    var url: String? {
        (postgres ?? ProcessInfo.processInfo.environment["CAB_POSTGRES_URL"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        guard url != nil else { throw ValidationError("migrate needs --postgres URL (or CAB_POSTGRES_URL)") }
    }

    func run() throws {
        logLevel.apply()
        guard let url else { Console.fail("migrate needs --postgres URL (or CAB_POSTGRES_URL)") }
        do {
            if let from {
                let directory = DataDirectory(path: from)
                guard FileManager.default.fileExists(atPath: directory.storePath) else {
                    Console.fail("no SwiftCab store at \(directory.storePath)", code: 66)
                }
                let started = ContinuousClock.now
                var rows = 0
                var short: [String] = []
                let reports = try StoreCopier().copy(from: directory.storePath, to: url) { r in
                    Console.line(
                        "\(r.table): \(r.source) in SQLite, \(r.target) in PostgreSQL (\(r.inserted) copied now)")
                }
                for r in reports {
                    rows += r.inserted
                    if !r.complete { short.append(r.table) }
                }
                let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
                Console.line(
                    "copied \(rows) rows in \(String(format: "%.1f", seconds)) s (\(Int(Double(rows) / max(seconds, 0.001))) rows/s)"
                        + (StoreCopier.notCopied.isEmpty
                            ? "" : "; not copied: \(StoreCopier.notCopied.joined(separator: ", "))"))
                if !short.isEmpty {
                    Console.fail(
                        "PostgreSQL holds fewer rows than SQLite in: \(short.joined(separator: ", "))", code: 65)
                }
            } else {
                let applied = try PostgresStore.migrate(conninfo: url)
                Console.line(
                    applied.isEmpty
                        ? "schema up to date (version \(PostgresStore.schemaVersion))"
                        : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
            }
        } catch let error as PostgresError where error.isConfigurationError {
            Console.fail("PostgreSQL refused the login: \(error.message)", code: 64)
        } catch let error as PostgresError where error.isUnavailable {
            Console.fail("PostgreSQL is not reachable: \(error.message)", code: 69)
        } catch {
            Console.fail("migrate failed: \(error)", code: 70)
        }
        exitProcess(0)
    }
}
