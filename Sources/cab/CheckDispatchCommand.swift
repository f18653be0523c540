import ArgumentParser
import CabStore
import Foundation

/// `cab check-dispatch --postgres URL`: reads a PostgreSQL city's dispatch tables and prints what breaks the
/// rules of dispatch across nodes (issue 18); exits 1 when anything does.
struct CheckDispatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-dispatch",
        abstract: "Check a PostgreSQL city's dispatch for double assignments, stale fences and missed deadlines.",
        discussion: """
            Read-only, in one snapshot. Prints the count of: double assignments (a booking with two accepted \
            offers, or an accepted offer of another driver than the booking's), drivers who held two offers open \
            at once, drivers with two open trips, writes under a stale fence (a later fence of the shard was \
            granted before the write, or its fence never was), and trips past a deadline by more than the grace \
            that are neither terminal nor moved on. Exits 0 when every count is zero, 1 otherwise \
            (docs/dispatch-ownership.md).
            """)

    @Option(help: ArgumentHelp("libpq URL or connection string (default $CAB_POSTGRES_URL)", valueName: "URL"))
    var postgres: String?
    @Option(
        name: .customLong("grace-seconds"),
        help: ArgumentHelp("how long past its deadline a trip may be before it counts (default 12)", valueName: "S"))
    var graceSeconds: Int = 12
    @Option(help: ArgumentHelp("ids printed per rule broken (default 5)", valueName: "N"))
    var examples: Int = 5
    @OptionGroup var logLevel: LogLevelOption

    /// `--postgres`, else `$CAB_POSTGRES_URL`.
    var url: String? {
        (postgres ?? ProcessInfo.processInfo.environment["CAB_POSTGRES_URL"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        guard url != nil else { throw ValidationError("check-dispatch needs --postgres URL (or CAB_POSTGRES_URL)") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds is zero or more, not \(graceSeconds)") }
        guard examples >= 0 else { throw ValidationError("--examples is zero or more, not \(examples)") }
    }

    func run() throws {
        logLevel.apply()
        guard let url else { Console.fail("check-dispatch needs --postgres URL (or CAB_POSTGRES_URL)") }
        let report: DispatchInvariantReport
        do {
            report = try DispatchInvariantChecker.check(conninfo: url, graceMilliseconds: Int64(graceSeconds) * 1_000)
        } catch let error as StoreError where error.code == .misconfigured {
            Console.fail(error.message, code: 64)
        } catch let error as StoreError where error.code == .unavailable {
            Console.fail("PostgreSQL is not reachable: \(error.message)", code: 69)
        } catch let error as StoreError where error.code == .schemaTooNew {
            Console.fail(error.message, code: 65)
        } catch {
            Console.fail("check-dispatch failed: \(error)", code: 70)
        }
        for rule in report.counts {
            let shown = rule.examples.prefix(examples).joined(separator: ", ")
            Console.line("\(rule.name): \(rule.count)" + (shown.isEmpty ? "" : " (\(shown))"))
        }
        Console.line(report.isClean ? "dispatch invariants hold" : "DISPATCH INVARIANTS BROKEN")
        exitProcess(report.isClean ? 0 : 1)
    }
}
