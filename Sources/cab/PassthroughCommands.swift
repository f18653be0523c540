import ArgumentParser

/// `cab simulate …`: its three modes parse their own flags (their code moves to its own target, issue 14 part 5),
/// so every argument after `simulate` is passed through unchanged.
struct SimulatePassthrough: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Drive simulated drivers on the imported map (--drivers), or riders and trips (--trips).",
        discussion: """
            cab simulate --data DIR --url URL --drivers N --rate SECONDS: drivers over HTTP.
            cab simulate --trips [--data DIR] ...: a day of trips in process, with a simulated clock.
            cab simulate --trips --url URL ...: whole trips against a running server, in real time.
            cab simulate --chaos --url A,B,C ...: dispatches on a city's nodes while they fail (issue 18).
            Run `cab simulate --help`, `cab simulate --trips --help` or `cab simulate --trips --url U --help` \
            for each mode's flags.
            """)

    @Argument(parsing: .captureForPassthrough, help: "the mode's flags")
    var arguments: [String] = []

    func run() throws {
        if arguments.contains("--chaos") {
            ChaosCommand.run(arguments)
        } else if arguments.contains("--trips")
            && arguments.contains(where: { $0 == "--url" || $0.hasPrefix("--url=") })
        {
            LiveTripCommand.run(arguments)
        } else if arguments.contains("--trips") {
            DispatchCommands.simulate(arguments)
        } else {
            SimulateCommand.run(arguments)
        }
    }
}

/// `cab bench KIND …`: benchmarks that print figures; each kind parses its own flags, passed through unchanged.
struct BenchPassthrough: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks that print figures (route, places, api, sse, tracking, tracking-http, dispatch).",
        discussion: "Run `cab bench KIND --help` for a kind's flags. Figures are printed, never asserted.")

    @Argument(parsing: .captureForPassthrough, help: "KIND and its flags")
    var arguments: [String] = []

    func run() throws {
        BenchCommand.run(arguments)
    }
}
