import CabGeo

/// A command's flags and positional arguments, checked against what the command declares: the hand-written
/// parser that `cab bench` and `cab simulate` still use behind their ArgumentParser pass-through commands
/// (every other command is a `ParsableCommand`).
struct Arguments {
    /// One flag a command accepts.
    struct Flag {
        let name: String
        let valueName: String?
        let help: String
        var takesValue: Bool { valueName != nil }
    }

    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` for a command accepting `flags`; exits 64 naming the offending flag otherwise.
    init(_ arguments: [String], flags: [Flag], usage: String) {
        var i = 0
        let known = Dictionary(uniqueKeysWithValues: flags.map { ($0.name, $0) })
        while i < arguments.count {
            let arg = arguments[i]
            if arg == "--help" || arg == "-h" {
                print(usage)
                exitProcess(0)
            }
            if arg.hasPrefix("--") && arg.count > 2 {
                var name = String(arg.dropFirst(2))
                var inline: String?
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard let flag = known[name] else { Console.fail("unknown flag --\(name)\n\n\(usage)") }
                if flag.takesValue {
                    if let inline {
                        values[name] = inline
                    } else {
                        guard i + 1 < arguments.count else {
                            Console.fail("--\(name) needs a value (\(flag.valueName ?? "VALUE"))")
                        }
                        i += 1
                        values[name] = arguments[i]
                    }
                } else {
                    guard inline == nil else { Console.fail("--\(name) takes no value") }
                    switches.insert(name)
                }
            } else {
                positional.append(arg)
            }
            i += 1
        }
    }

    /// The value of `--name`, if given.
    func value(_ name: String) -> String? { values[name] }

    /// True when the switch `--name` was given.
    func has(_ name: String) -> Bool { switches.contains(name) }

    /// The value of `--name` as an integer in `range`, `defaultValue` when absent; exits 64 when malformed.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let n = Int(text), range.contains(n) else {
            Console.fail(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    /// The value of `--name` as `LAT,LON`; exits 64 with what to fix when missing or invalid.
    func coordinate(_ name: String) -> Coordinate {
        guard let text = values[name] else { Console.fail("--\(name) LAT,LON is required") }
        return Self.parseCoordinate(text, what: "--\(name)")
    }

    /// Parses `LAT,LON` or exits 64 (the same check as `Coordinate.parsed`).
    static func parseCoordinate(_ text: String, what: String) -> Coordinate {
        do {
            return try Coordinate.parsed(text, what: what)
        } catch {
            Console.fail(error.message)
        }
    }

    /// Renders flags for a usage text.
    static func describe(_ flags: [Flag]) -> String {
        flags.map { f in
            let left = "  --\(f.name)" + (f.valueName.map { " \($0)" } ?? "")
            return left.padding(toLength: max(left.count + 2, 26), withPad: " ", startingAt: 0) + f.help
        }.joined(separator: "\n")
    }
}
