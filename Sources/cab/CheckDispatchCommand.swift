import ArgumentParser
import CabBench
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
            (docs/dispatch-ownership.md). With --faults (the chaos run's faults.tsv) it also prints how late the \
            offer and dispatch timeouts fired, calm and after a fault, and how long shards took to be taken over \
            after a kill or a pause, all on the database's clock.
            """)

    @Option(help: ArgumentHelp("libpq URL or connection string (default $CAB_POSTGRES_URL)", valueName: "URL"))
    var postgres: String?
    @Option(
        name: .customLong("grace-seconds"),
        help: ArgumentHelp("how long past its deadline a trip may be before it counts (default 12)", valueName: "S"))
    var graceSeconds: Int = 12
    @Option(help: ArgumentHelp("ids printed per rule broken (default 5)", valueName: "N"))
    var examples: Int = 5
    @Option(
        help: ArgumentHelp(
            "the chaos run's faults (kind node start_ms end_ms a line): also print the timers' lateness and takeovers",
            valueName: "FILE"))
    var faults: String?
    @Option(
        name: .customLong("lease-seconds"),
        help: ArgumentHelp("with --faults: the nodes' shard lease (default 10)", valueName: "S"))
    var leaseSeconds: Int = 10
    @Option(
        name: .customLong("dispatch-seconds"),
        help: ArgumentHelp("with --faults: the nodes' trip.dispatch_seconds (default 180)", valueName: "S"))
    var dispatchSeconds: Int = 180
    @OptionGroup var logLevel: LogLevelOption

    /// `--postgres`, else `$CAB_POSTGRES_URL`.
    var url: String? {
        (postgres ?? ProcessInfo.processInfo.environment["CAB_POSTGRES_URL"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    func validate() throws {
        guard url != nil else { throw ValidationError("check-dispatch needs --postgres URL (or CAB_POSTGRES_URL)") }
        guard graceSeconds >= 0 else { throw ValidationError("--grace-seconds is zero or more, not \(graceSeconds)") }
        guard examples >= 0 else { throw ValidationError("--examples is zero or more, not \(examples)") }
        guard leaseSeconds > 0 else { throw ValidationError("--lease-seconds is more than zero, not \(leaseSeconds)") }
        guard dispatchSeconds > 0 else {
            throw ValidationError("--dispatch-seconds is more than zero, not \(dispatchSeconds)")
        }
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
        if let faults { printTimings(url: url, faultsPath: faults) }
        exitProcess(report.isClean ? 0 : 1)
    }

    /// The timers' lateness and the takeovers, judged against the faults in `faultsPath` (printed, not judged by
    /// the exit status).
    func printTimings(url: String, faultsPath: String) {
        guard let text = try? String(contentsOfFile: faultsPath, encoding: .utf8) else {
            Console.fail("cannot read \(faultsPath): give the chaos run's faults.tsv", code: 66)
        }
        let parsed: [ChaosFault]
        switch ChaosFault.parse(text) {
        case .success(let faults): parsed = faults
        case .failure(let error):
            Console.fail("\(faultsPath):\(error.line): '\(error.text)' is not 'kind node start_ms end_ms'", code: 65)
        }
        do {
            let timings = try DispatchTimings.read(
                conninfo: url, dispatchMilliseconds: Int64(dispatchSeconds) * 1_000)
            let report = ChaosTimingReport(
                timings: timings, faults: parsed, leaseMilliseconds: Int64(leaseSeconds) * 1_000)
            Console.line("--- timings (the database's clock; \(parsed.count) faults)")
            for line in report.lines { Console.line(line) }
        } catch {
            Console.fail("reading the timings failed: \(error)", code: 70)
        }
    }
}
