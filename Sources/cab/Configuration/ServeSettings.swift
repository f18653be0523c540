import CabHTTP
import Foundation

/// A setting that cannot be used, with a message naming the key and what to fix (`cab serve` exits 64 with it).
struct ConfigurationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// What `cab serve` runs with: every key of `SettingKey.all`, merged from the defaults, the `--config` file, the
/// environment (`CAB_…`) and the flags, later over earlier, each checked on the way in. Built once at start-up;
/// the component configurations are made from it (`ServeSettings+Components.swift`).
struct ServeSettings: Sendable {
    /// Where a value came from, for messages ("--public /x: no index.html there").
    enum Source: Equatable, Sendable {
        case defaults
        case file(String)
        case environment(String)
        case flag(String)

        /// How a message names it.
        var label: String {
            switch self {
            case .defaults: "the default"
            case .file(let path): "in \(path)"
            case .environment(let name): "from \(name)"
            case .flag(let flag): "from --\(flag)"
            }
        }
    }

    private(set) var values: [String: SettingValue]
    private(set) var sources: [String: Source]

    /// Two worker threads per core, at least four: a new booking waits for its group commit parked, not on a
    /// thread, so the pool is sized for the CPU (rarer writes, accounts and trip steps, still block a worker for a
    /// commit). More threads only add switching: 32 gave p99 40 ms where 4 give 18 ms under `cab bench api` on two
    /// cores (docs/performance.md).
    static var defaultThreads: Int { max(4, HTTPServerConfiguration.processorCount * 2) }

    /// The defaults alone.
    init() {
        values = Dictionary(uniqueKeysWithValues: SettingKey.all.map { ($0.name, $0.defaultValue) })
        sources = Dictionary(uniqueKeysWithValues: SettingKey.all.map { ($0.name, Source.defaults) })
    }

    /// Defaults, then the file at `configPath` (if any), then `environment`'s `CAB_…` variables, then `flags`
    /// (flag name without `--` → its text). Throws naming the first key at fault.
    static func load(
        configPath: String?, environment: [String: String], flags: [String: String]
    ) throws(ConfigurationError) -> ServeSettings {
        var settings = ServeSettings()
        if let configPath { try settings.apply(fileAt: configPath) }
        for key in SettingKey.all {
            guard let text = environment[key.environment] else { continue }
            // An empty CAB_PUBLIC meant "not set" before the configuration file; an empty value still does.
            if text.isEmpty, case .optionalString = key.kind { continue }
            try settings.set(key, text: text, from: .environment(key.environment))
        }
        for key in SettingKey.all {
            guard let flag = key.flag, let text = flags[flag] else { continue }
            try settings.set(key, text: text, from: .flag(flag))
        }
        try settings.validateTogether()
        return settings
    }

    private mutating func set(_ key: SettingKey, text: String, from source: Source) throws(ConfigurationError) {
        guard let value = key.parse(text: text) else {
            throw ConfigurationError(message: "\(key.name): \(key.requirement), not '\(text)' (\(source.label))")
        }
        values[key.name] = value
        sources[key.name] = source
    }

    /// Reads a JSON file of nested objects whose leaves are keys of the catalogue; unknown keys are refused by name.
    private mutating func apply(fileAt path: String) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(message: "cannot read the configuration file \(path)")
        }
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(
                message: "the configuration file \(path) is not valid JSON: \(JSONValue.explain(error))")
        }
        guard case .object(let top) = document else {
            throw ConfigurationError(message: "the configuration file \(path) must hold one JSON object ({...})")
        }
        try apply(object: top, prefix: "", path: path)
    }

    private mutating func apply(object: [String: JSONValue], prefix: String, path: String) throws(ConfigurationError) {
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            let full = prefix + name
            if let key = SettingKey.named(full) {
                guard let parsed = value.settingValue.flatMap(key.check) else {
                    throw ConfigurationError(message: "\(full): \(key.requirement), not \(value.summary) (in \(path))")
                }
                values[full] = parsed
                sources[full] = .file(path)
                continue
            }
            let section = full + "."
            let below = SettingKey.all.filter { $0.name.hasPrefix(section) }
            guard !below.isEmpty else {
                let siblings = SettingKey.all.map(\.name).filter {
                    $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).isEmpty
                }
                .map { String($0.dropFirst(prefix.count).split(separator: ".")[0]) }
                let known = Array(Set(siblings)).sorted().joined(separator: ", ")
                throw ConfigurationError(
                    message:
                        "\(full): unknown key (in \(path)); \(prefix.isEmpty ? "the top level" : String(prefix.dropLast())) "
                        + "has \(known); every key is in docs/configuration.md")
            }
            guard case .object(let inner) = value else {
                throw ConfigurationError(
                    message: "\(full): must be an object of settings, not \(value.summary) (in \(path))")
            }
            try apply(object: inner, prefix: section, path: path)
        }
    }

    /// Rules that span keys.
    private func validateTogether() throws(ConfigurationError) {
        try validateCluster()
        let memory = integer("http.connection_memory_bytes")
        let needed =
            2 * (integer("http.max_uri_bytes") + integer("http.max_header_bytes"))
            + 64 * integer("http.max_query_parameters")
        guard memory >= needed else {
            throw ConfigurationError(
                message: "http.connection_memory_bytes: must be at least \(needed) for these URI, header and "
                    + "parameter limits, not \(memory) (\(source(of: "http.connection_memory_bytes").label))")
        }
    }

    // MARK: Reading

    /// The whole number under `name` (a key of the catalogue).
    func integer(_ name: String) -> Int {
        guard case .integer(let n) = values[name] else { preconditionFailure("\(name) is not a whole-number key") }
        return n
    }

    /// The number under `name`.
    func number(_ name: String) -> Double {
        switch values[name] {
        case .number(let x): return x
        case .integer(let n): return Double(n)
        default: preconditionFailure("\(name) is not a number key")
        }
    }

    /// The numbers under `name`.
    func numbers(_ name: String) -> [Double] {
        guard case .numbers(let xs) = values[name] else { preconditionFailure("\(name) is not a list key") }
        return xs
    }

    /// The text under `name`, nil when null.
    func string(_ name: String) -> String? {
        switch values[name] {
        case .string(let s): return s
        case .null: return nil
        default: preconditionFailure("\(name) is not a text key")
        }
    }

    /// Where the value of `name` came from.
    func source(of name: String) -> Source { sources[name] ?? .defaults }

    /// The settings in force as one JSON object of nested sections (sorted keys), which `--config` reads back.
    func json() -> String {
        var lines: [String] = []
        func render(prefix: String, indent: String) {
            let names = SettingKey.all.map(\.name).filter { $0.hasPrefix(prefix) }
            var seen: [String] = []
            for name in names {
                let head = String(name.dropFirst(prefix.count).split(separator: ".")[0])
                if !seen.contains(head) { seen.append(head) }
            }
            seen.sort()
            for (i, head) in seen.enumerated() {
                let comma = i == seen.count - 1 ? "" : ","
                let full = prefix + head
                if let value = values[full], SettingKey.named(full) != nil {
                    lines.append("\(indent)\"\(head)\": \(value.json)\(comma)")
                } else {
                    lines.append("\(indent)\"\(head)\": {")
                    render(prefix: full + ".", indent: indent + "  ")
                    lines.append("\(indent)}\(comma)")
                }
            }
        }
        lines.append("{")
        render(prefix: "", indent: "  ")
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
