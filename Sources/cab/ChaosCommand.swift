import CabBench
import CabGeo
import Foundation

/// `cab simulate --chaos --url A,B,C`: riders and drivers playing dispatches against the nodes of one city while
/// the nodes, Redis and PostgreSQL are killed, paused and restarted around them (issue 18's chaos run:
/// `scripts/chaos-run.sh`). Prints what the users saw; `cab check-dispatch` judges the database afterwards.
enum ChaosCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "chaos", valueName: nil, help: "this mode"),
        .init(
            name: "data", valueName: "DIR", help: "data directory with the imported map (default $CAB_DATA or data/cab)"
        ),
        .init(name: "url", valueName: "URL[,URL...]", help: "the nodes of the city, separated by commas"),
        .init(name: "trips", valueName: "N", help: "bookings to make in all (default 200)"),
        .init(name: "drivers", valueName: "N", help: "simulated drivers (default 20)"),
        .init(name: "riders", valueName: "N", help: "riders booking at once (default 10)"),
        .init(name: "accept", valueName: "P", help: "probability a driver accepts an offer (default 0.5)"),
        .init(name: "decline", valueName: "P", help: "probability a driver declines one (default 0.25; else ignored)"),
        .init(name: "hand-back", valueName: "P", help: "probability a driver hands a won trip back (default 0.2)"),
        .init(
            name: "dispatch-seconds", valueName: "S",
            help: "the nodes' trip.dispatch_seconds: how late each no_driver_found came is printed"),
        .init(
            name: "calm-seconds", valueName: "S",
            help: "print the first offers of bookings made in the first S seconds apart (before faults start)"),
        .init(name: "seed", valueName: "N", help: "random seed (default 1)"),
    ]

    static let usage = """
        usage: cab simulate --chaos --url URL,URL,... --data DIR [--trips N] [--drivers N] [--riders N]

        Drivers wait online near the centre of the imported map, each with its offer stream on a node; riders book
        trips there one at a time on theirs. A driver accepts, declines or ignores each offer on a node chosen at
        random, and hands some won trips back; riders cancel trips a driver took (so drivers are free again) and
        wait for the others to end. Every account moves to the next node when its node does not answer. Prints
        the bookings, offers and answers, the offers a driver was sent twice (exit 1 when any), and the time from
        a booking's answer to its first offer (p50, p99, max).

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        let data = dataDirectory(args)
        guard let list = args.value("url") else { Console.fail("--chaos needs --url with the city's nodes") }
        let urls = SimulateCommand.nodeURLs(list)
        func probability(_ name: String, _ fallback: Double) -> Double {
            guard let text = args.value(name) else { return fallback }
            guard let p = Double(text), (0...1).contains(p) else { Console.fail("--\(name) is between 0 and 1") }
            return p
        }
        let routing = ServiceLoader.loadRouting(dataDirectory: data)
        let points = routing.graph.routableNodeCoordinates
        guard points.count >= 2 else { Console.fail("the imported map has no road network", code: 65) }
        let mean = Coordinate(
            latitude: points.map(\.latitude).reduce(0, +) / Double(points.count),
            longitude: points.map(\.longitude).reduce(0, +) / Double(points.count))
        // The routable junction nearest the map's middle; drivers and pickups within 600 m, drop-offs 0.6-2 km.
        let center = points.min { $0.distanceMeters(to: mean) < $1.distanceMeters(to: mean) }!
        let spots = points.filter { $0.distanceMeters(to: center) < 600 }
        let destinations = points.filter { (600..<2_000).contains($0.distanceMeters(to: center)) }
        guard !spots.isEmpty, !destinations.isEmpty else {
            Console.fail("the map's middle has too few roads", code: 65)
        }
        var configuration = DispatchChaos.Configuration(baseURLs: urls, spots: spots, destinations: destinations)
        configuration.trips = args.integer("trips", default: 200, in: 1...1_000_000)
        configuration.drivers = args.integer("drivers", default: 20, in: 1...10_000)
        configuration.riders = args.integer("riders", default: 10, in: 1...10_000)
        configuration.acceptProbability = probability("accept", 0.5)
        configuration.declineProbability = probability("decline", 0.25)
        configuration.handBackProbability = probability("hand-back", 0.2)
        guard configuration.acceptProbability + configuration.declineProbability <= 1 else {
            Console.fail("--accept and --decline add up to at most 1")
        }
        configuration.dispatchSeconds = args.value("dispatch-seconds").map {
            guard let s = Double($0), s > 0 else { Console.fail("--dispatch-seconds is a positive number") }
            return s
        }
        if let calm = args.value("calm-seconds") {
            guard let s = Double(calm), s >= 0 else { Console.fail("--calm-seconds is zero or more") }
            configuration.calmSeconds = s
        }
        configuration.seed = UInt64(args.integer("seed", default: 1, in: 0...Int.max))
        let chaos = DispatchChaos(configuration: configuration) { Console.line($0) }
        let s = chaos.run()
        Console.line(
            "bookings \(s.bookings) (\(s.bookingFailures) not made), offers \(s.offers), accepted \(s.accepted), "
                + "accepts refused \(s.acceptsRefused), declines \(s.declines), ignored \(s.ignored), "
                + "handed back \(s.handBacks)")
        Console.line(
            "ended: rider cancelled \(s.riderCancels), no driver found \(s.noDriverFound), rider gave up \(s.givenUp); "
                + "requests moved to another node \(s.nodeSwitches); in \(Int(s.seconds)) s")
        Console.line(
            "offers sent to a driver twice: \(s.repeatedOffers) (and \(s.reofferedAfterHandBack) asked again in a new "
                + "round after another driver handed the trip back)")
        for example in s.repeatedExamples.prefix(10) { Console.line("  offered again: \(example)") }
        Console.line("booking to first offer: " + describe(s.firstOfferMilliseconds, unit: "ms"))
        if configuration.calmSeconds > 0 {
            Console.line(
                "booking to first offer, first \(Int(configuration.calmSeconds)) s (no faults yet): "
                    + describe(s.calmFirstOfferMilliseconds, unit: "ms"))
            let warm = s.calmFirstOffers.filter { $0.bookedSeconds >= 5 }.map(\.milliseconds)
            Console.line(
                "booking to first offer, from 5 s in to \(Int(configuration.calmSeconds)) s (the nodes warm, the riders' "
                    + "first bookings at the same instant left out): " + describe(warm, unit: "ms"))
            let slowest = s.calmFirstOffers.sorted { $0.milliseconds > $1.milliseconds }.prefix(5)
            Console.line(
                "  the slowest: "
                    + slowest.map { String(format: "%.0f ms (booked %.1f s in)", $0.milliseconds, $0.bookedSeconds) }
                    .joined(separator: ", "))
        }
        if configuration.dispatchSeconds != nil {
            Console.line(
                "no_driver_found at the dispatch deadline, seen this late by the rider: "
                    + describe(s.timeoutLatenessSeconds, unit: "s"))
        }
        exitProcess(s.repeatedOffers == 0 ? 0 : 1)
    }

    /// `p50 X, p99 Y, max Z over N`.
    static func describe(_ values: [Double], unit: String) -> String {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return "none" }
        func at(_ p: Double) -> String {
            String(format: unit == "ms" ? "%.0f" : "%.1f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))])
                + " " + unit
        }
        return "p50 \(at(0.5)), p90 \(at(0.9)), p99 \(at(0.99)), max \(at(1)) over \(sorted.count)"
    }
}
