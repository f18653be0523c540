import CabAPI
import CabBench
import CabCore
import CabHTTP
import CabImport
import CabLoopback
import CabPlacesBench
import CabRouting
import CabRoutingBench
import CabStore
import Foundation

/// `cab simulate --trips` and `cab bench dispatch`: both run on the data directory's map, or a synthetic city.
enum DispatchCommands {
    static let simulateFlags: [Arguments.Flag] = [
        .init(name: "trips", valueName: nil, help: "simulate riders and trips (this mode)"),
        .init(name: "data", valueName: "DIR", help: "data directory with an imported map (default: a synthetic city)"),
        .init(name: "drivers", valueName: "N", help: "simulated drivers (default 30)"),
        .init(name: "rate", valueName: "PER_HOUR", help: "bookings per hour (default 120)"),
        .init(name: "hours", valueName: "H", help: "hours of booking to simulate (default 1)"),
        .init(name: "decline", valueName: "PERCENT", help: "chance a driver declines an offer (default 15)"),
        .init(name: "cancel", valueName: "PERCENT", help: "chance a rider cancels while waiting (default 5)"),
        .init(name: "seed", valueName: "N", help: "random seed (default 1)"),
        .init(name: "json", valueName: nil, help: "print the report as one JSON object"),
    ]

    static let simulateUsage = """
        usage: cab simulate --trips [--data DIR] [--drivers N] [--rate PER_HOUR] [--hours H] [--json]

        Replays a day of a small city in process: riders book at the rate, drivers accept (some decline), drive to
        the pickup, start with the rider's PIN, drive to the drop-off and complete (some cancel), under the real
        dispatch and trip rules and a real store (a temporary file), with a simulated clock. Prints the final
        states and the store's consistency check; exits 1 if the store is inconsistent.

        \(Arguments.describe(simulateFlags))
        """

    static func simulate(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: simulateFlags, usage: simulateUsage)
        let rate = Double(args.integer("rate", default: 120, in: 1...100_000))
        let configuration = TripSimulationConfiguration(
            drivers: args.integer("drivers", default: 30, in: 1...100_000), bookingsPerHour: rate,
            durationSeconds: args.integer("hours", default: 1, in: 1...48) * 3_600,
            declineProbability: Double(args.integer("decline", default: 15, in: 0...100)) / 100,
            riderCancelProbability: Double(args.integer("cancel", default: 5, in: 0...100)) / 100,
            seed: UInt64(args.integer("seed", default: 1, in: 0...Int.max)))
        let (graph, index) = loadGraph(args)
        let (storePath, cleanup) = temporaryStore()
        defer { cleanup() }
        do {
            let store = try SQLiteStore(path: storePath, configuration: .init(durable: false))
            defer { store.close() }
            let report = try TripSimulation(graph: graph, index: index, store: store, configuration: configuration)
                .run()
            if args.has("json") {
                Console.line(String(decoding: try JSONCoding.encoder.encode(report), as: UTF8.self))
            } else {
                Console.line(
                    "bookings \(report.bookings), declines \(report.declines), simulated \(report.simulatedSeconds) s")
                for (state, n) in report.finalStates.sorted(by: { $0.key < $1.key }) {
                    Console.line("  \(state): \(n)")
                }
                Console.line("mean pickup wait \(Int(report.meanPickupWaitSeconds)) s")
                Console.line(
                    report.inconsistencies.isEmpty
                        ? "store consistent" : "INCONSISTENT: \(report.inconsistencies.prefix(10))")
            }
            cleanup()
            exitProcess(report.inconsistencies.isEmpty ? 0 : 1)
        } catch {
            Console.fail("simulation failed: \(error)", code: 70)
        }
    }

    static let benchFlags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory with an imported map (default: a synthetic city)"),
        .init(name: "drivers", valueName: "N", help: "online drivers (default 10000)"),
        .init(name: "rate", valueName: "PER_S", help: "bookings per second (default 50)"),
        .init(name: "bookings", valueName: "N", help: "bookings in the latency run (default 500)"),
        .init(name: "json", valueName: nil, help: "print the figures as one JSON object"),
    ]

    static func bench(_ arguments: [String]) -> Never {
        let usage =
            "usage: cab bench dispatch [--data DIR] [--drivers N] [--rate PER_S] [--json]\n\n\(Arguments.describe(benchFlags))"
        let args = Arguments(arguments, flags: benchFlags, usage: usage)
        let (graph, index) = loadGraph(args)
        let (storePath, cleanup) = temporaryStore()
        defer { cleanup() }
        do {
            let r = try DispatchBenchmark.run(
                graph: graph, index: index, storePath: storePath,
                drivers: args.integer("drivers", default: 10_000, in: 1...1_000_000),
                bookingsPerSecond: Double(args.integer("rate", default: 50, in: 1...10_000)),
                bookings: args.integer("bookings", default: 500, in: 1...1_000_000))
            if args.has("json") {
                Console.line(String(decoding: try JSONCoding.encoder.encode(r), as: UTF8.self))
            } else {
                Console.line("graph: \(r.graphNodes) nodes; \(r.onlineDrivers) online drivers")
                Console.line(
                    String(
                        format: "decision (%.0f candidates ranked by road ETA): median %.0f us, p99 %.0f us",
                        r.meanCandidates, r.decisionMedianMicroseconds, r.decisionP99Microseconds))
                Console.line(
                    String(
                        format: "booking to first offer at %.0f bookings/s (%d bookings): median %.1f ms, p99 %.1f ms",
                        r.bookingsPerSecond, r.bookings, r.bookingToOfferMedianMilliseconds,
                        r.bookingToOfferP99Milliseconds))
            }
            cleanup()
            exitProcess(0)
        } catch {
            Console.fail("benchmark failed: \(error)", code: 70)
        }
    }

    static func loadGraph(_ args: Arguments) -> (RoadGraph, FastRouterIndex?) {
        guard args.value("data") != nil else { return (SyntheticCity.grid(rows: 120, cols: 120, seed: 1), nil) }
        // Only the road graph: the data directory's store is left alone (the run uses a temporary one).
        let (graph, index) = ServiceLoader.loadRoads(dataDirectory: dataDirectory(args))
        return (graph, index)
    }

    static func temporaryStore() -> (String, () -> Void) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cab-dispatch-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            Console.fail("cannot create a temporary directory: \(error)", code: 73)
        }
        return (dir.appendingPathComponent("store.sqlite").path, { try? FileManager.default.removeItem(at: dir) })
    }
}
