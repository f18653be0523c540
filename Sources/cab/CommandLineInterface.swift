import Foundation

/// Parses the command line and dispatches to a command.
enum CommandLineInterface {
    static let usage = """
        cab: the SwiftCab server and tools

        usage: cab COMMAND [options]

        commands:
          serve     serve the API and web app
          import    import an OpenStreetMap extract (.osm.pbf) into a data directory
          route     print the road route between two points
          search    search the map's places as you type them
          reverse   name the place at a point
          admin     account administration (create-dispatcher)
          migrate   bring a PostgreSQL schema up to date, or copy a SQLite city into PostgreSQL (--from)
          simulate  drive simulated drivers on the imported map (--drivers), or riders and trips (--trips)
          bench     benchmarks that print figures (route, places, api, tracking, dispatch)

        Run `cab COMMAND --help` for a command's flags.
        """

    static func run(_ arguments: [String]) -> Never {
        guard let command = arguments.first, command != "--help", command != "-h", command != "help" else {
            print(usage)
            exit(arguments.isEmpty ? 64 : 0)
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "serve": ServeCommand.run(rest)
        case "bench": BenchCommand.run(rest)
        case "simulate" where rest.contains("--trips") && rest.contains("--url"): LiveTripCommand.run(rest)
        case "simulate" where rest.contains("--trips"): DispatchCommands.simulate(rest)
        case "import": ImportCommand.run(rest)
        case "route": RouteCommand.run(rest)
        case "simulate": SimulateCommand.run(rest)
        case "search": PlaceCommands.search(rest)
        case "reverse": PlaceCommands.reverse(rest)
        case "admin": AdminCommand.run(rest)
        case "migrate": MigrateCommand.run(rest)
        default: break
        }
        Console.fail("unknown command '\(command)'\n\n\(usage)")
    }
}
