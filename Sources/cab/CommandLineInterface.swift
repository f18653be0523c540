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
          simulate  drive simulated drivers on the imported map, reporting to a server
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
        case "import": ImportCommand.run(rest)
        case "route": RouteCommand.run(rest)
        case "simulate": SimulateCommand.run(rest)
        default: break
        }
        Console.fail("unknown command '\(command)'\n\n\(usage)")
    }
}
