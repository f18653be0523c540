import ArgumentParser
import Foundation
import Logging

/// `cab`: the SwiftCab server and tools, on swift-argument-parser (generated help, completions, validation).
/// Usage mistakes exit 64 (sysexits `EX_USAGE`) with what to fix; commands exit 65/66/69/70/73/74 as before.
@main
struct CabCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cab",
        abstract: "The SwiftCab server and tools.",
        discussion: """
            Without --data, commands use $CAB_DATA or data/cab. `cab serve --print-config` shows every setting \
            in force; docs/configuration.md lists them. Shell completions: `cab --generate-completion-script bash` \
            (or zsh, fish).
            """,
        subcommands: [
            ServeCommand.self, ImportCommand.self, RouteCommand.self, SearchCommand.self, ReverseCommand.self,
            AdminCommand.self, MigrateCommand.self, SimulatePassthrough.self, BenchPassthrough.self,
            CheckDispatchCommand.self,
        ])

    /// Parses the command line and runs the command. Written out (not ArgumentParser's default `main`) to
    /// bootstrap logging first, to name an unknown command as such, and to keep `cab` alone a usage error.
    static func main() {
        if let text = ProcessInfo.processInfo.environment["CAB_LOG_LEVEL"], !text.isEmpty,
            Logger.Level(rawValue: text) == nil
        {
            Console.fail("CAB_LOG_LEVEL must be one of \(SettingKey.logLevels.joined(separator: ", ")), not '\(text)'")
        }
        Log.bootstrap(level: LogLevelOption.fromEnvironment() ?? .info)
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else {
            Console.error(helpMessage())
            exitProcess(64)
        }
        refuseUnknownCommand(in: arguments)
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            exitProcess(0)
        } catch {
            exit(withError: error)
        }
    }

    /// Exits 64 when a word where a command belongs names none (`cab frobnicate`, `cab admin frobnicate`),
    /// listing the commands there.
    static func refuseUnknownCommand(in arguments: [String]) {
        var group: any ParsableCommand.Type = CabCommand.self
        var path = ["cab"]
        for word in arguments {
            let subcommands = group.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-"), word != "help" else { return }
            guard
                let next = subcommands.first(where: { name(of: $0) == word || $0.configuration.aliases.contains(word) })
            else {
                let names = subcommands.map(name(of:)).joined(separator: ", ")
                let place = path.count == 1 ? "" : " for `\(path.joined(separator: " "))`"
                Console.fail(
                    "unknown command '\(word)'\(place); the commands are: \(names)\n"
                        + "Run `\(path.joined(separator: " ")) --help` for what each does.")
            }
            group = next
            path.append(name(of: next))
        }
    }

    private static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? command._commandName
    }
}

/// `--log-level LEVEL`, on every command (`cab serve` takes it into its configuration as `log_level`).
struct LogLevelOption: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "least severe log level written to standard error: trace, debug, info, notice, warning, error or critical "
                + "(default $CAB_LOG_LEVEL or info)", valueName: "LEVEL"))
    var text: String?

    func validate() throws {
        if let text, Logger.Level(rawValue: text) == nil {
            throw ValidationError(
                "--log-level must be one of \(SettingKey.logLevels.joined(separator: ", ")), not '\(text)'")
        }
    }

    /// Applies the level given (if any) to every logger.
    func apply() {
        if let level = text.flatMap(Logger.Level.init(rawValue:)) { Log.bootstrap(level: level) }
    }

    /// `$CAB_LOG_LEVEL`, when it names a level.
    static func fromEnvironment() -> Logger.Level? {
        ProcessInfo.processInfo.environment["CAB_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
    }
}

/// `--data DIR` for the commands that read a data directory.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data"),
        help: ArgumentHelp("data directory (default $CAB_DATA or data/cab)", valueName: "DIR"))
    var path: String?

    /// `--data DIR`, else `$CAB_DATA`, else `data/cab` under the working directory.
    var resolved: String { dataDirectory(given: path) }
}
