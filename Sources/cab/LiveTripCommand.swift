import CabBench
import CabClient
import CabLoopback
import CabPlacesBench
import CabRoutingBench
import Foundation
import Synchronization

/// `cab simulate --trips --url URL`: the live trip simulation against a running `cab serve`.
enum LiveTripCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "trips", valueName: nil, help: "simulate riders and trips"),
        .init(name: "url", valueName: "URL", help: "the running server (live mode)"),
        .init(
            name: "data", valueName: "DIR", help: "data directory with the server's map (default $CAB_DATA or data/cab)"
        ),
        .init(name: "drivers", valueName: "N", help: "simulated drivers (default 10)"),
        .init(name: "riders-per-minute", valueName: "R", help: "bookings per minute (default 6)"),
        .init(name: "duration", valueName: "S", help: "seconds of booking (default 60)"),
        .init(name: "drain", valueName: "S", help: "seconds open trips may take to end afterwards (default 300)"),
        .init(name: "decline", valueName: "P", help: "chance a driver declines an offer, 0 to 1 (default 0.15)"),
        .init(name: "cancel", valueName: "P", help: "chance a rider cancels while waiting, 0 to 1 (default 0.05)"),
        .init(name: "speed", valueName: "X", help: "drive X times faster than the roads allow (default 1)"),
        .init(name: "seed", valueName: "N", help: "random seed (default 1)"),
    ]

    static let usage = """
        usage: cab simulate --trips --url http://127.0.0.1:PORT --drivers N --riders-per-minute R [--duration S]
               [--decline P] [--cancel P] [--speed X] [--data DIR]

        Drives a running `cab serve` over HTTP in real time, so the web app shows the trips: N drivers are created
        through the API, go online and listen to their offer stream; riders book at R per minute between random
        routable points of the map in DIR (the server's map); drivers accept (some decline), drive to the pickup
        reporting positions, arrive, start with the rider's PIN, drive to the drop-off and complete; some riders
        cancel. After S seconds no one books; open trips get the drain time to end. Prints a summary.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard let url = args.value("url").flatMap(URL.init(string:)), url.scheme?.hasPrefix("http") == true else {
            Console.fail("--url must be an http(s) URL such as http://127.0.0.1:8080")
        }
        func number(_ name: String, _ defaultValue: Double, _ range: ClosedRange<Double>) -> Double {
            guard let text = args.value(name) else { return defaultValue }
            guard let value = Double(text), range.contains(value) else {
                Console.fail("--\(name) must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        let configuration = LiveTripSimulation.Configuration(
            baseURL: url, drivers: args.integer("drivers", default: 10, in: 1...10_000),
            ridersPerMinute: number("riders-per-minute", 6, 0.01...6_000),
            durationSeconds: number("duration", 60, 1...604_800),
            drainSeconds: number("drain", 300, 0...86_400), declineProbability: number("decline", 0.15, 0...1),
            cancelProbability: number("cancel", 0.05, 0...1), speedFactor: number("speed", 1, 0.1...20),
            seed: UInt64(args.integer("seed", default: 1, in: 0...Int.max)))
        let data = dataDirectory(args)
        let routing = ServiceLoader.loadRouting(dataDirectory: data)
        let simulation = LiveTripSimulation(
            routing: routing, configuration: configuration, progress: { Console.line($0) })
        switch runBlocking({ () async throws(ClientError) in try await simulation.run() }) {
        case .success(let s):
            Console.line(
                "bookings \(s.bookings), completed \(s.completed), cancelled \(s.cancelledByRider + s.cancelledByDriver) "
                    + "(rider \(s.cancelledByRider), driver \(s.cancelledByDriver)), no driver \(s.noDriver), "
                    + "expired \(s.expired), still open \(s.open)")
            Console.line("declines \(s.declines), position uploads \(s.uploads), failed calls \(s.failures)")
            exitProcess(0)
        case .failure(let error):
            Console.fail("simulate: \(error.message)", code: 69)
        }
    }
}
