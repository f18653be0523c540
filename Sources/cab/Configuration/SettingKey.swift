import Foundation

/// A value of one `cab serve` setting, as the file, the environment or a flag gives it.
enum SettingValue: Equatable, Sendable {
    case integer(Int)
    case number(Double)
    case string(String)
    case numbers([Double])
    case null
}

/// One key of `cab serve`'s configuration: its dotted name (`dispatch.batch_size`), what it accepts, its default,
/// its environment variable and its flag. The catalogue (`SettingKey.all`) is the one list: the file, the
/// environment, the flags, `--print-config` and docs/configuration.md all follow it.
struct SettingKey: Sendable {
    /// What a key accepts.
    enum Kind: Sendable {
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// Text; `choices` non-empty limits it to those words.
        case string(choices: [String])
        /// Text or null (the environment's and flags' empty text is null).
        case optionalString
        /// One to `maxCount` numbers in the range, none smaller than the one before.
        case growingNumbers(ClosedRange<Double>, maxCount: Int)
    }

    /// The dotted name, as in the file (`{"dispatch": {"batch_size": 3}}`).
    let name: String
    let kind: Kind
    /// Today's value when nothing sets it (taken from the component's own configuration defaults).
    let defaultValue: SettingValue
    /// The environment variable that sets it: `CAB_` and the name in capitals with `_` for `.`, unless named.
    let environment: String
    /// The `cab serve` flag that sets it, if any (without `--`).
    let flag: String?
    /// What it means (docs/configuration.md repeats these).
    let help: String

    init(
        _ name: String, _ kind: Kind, default defaultValue: SettingValue, environment: String? = nil,
        flag: String? = nil, help: String
    ) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.environment = environment ?? "CAB_" + name.uppercased().replacingOccurrences(of: ".", with: "_")
        self.flag = flag
        self.help = help
    }

    /// Checks `value` against the kind; the message says what the key accepts, after `key: `.
    func check(_ value: SettingValue) -> SettingValue? {
        switch (kind, value) {
        case (.integer(let range), .integer(let n)) where range.contains(n): return value
        case (.number(let range), .integer(let n)) where range.contains(Double(n)): return .number(Double(n))
        case (.number(let range), .number(let x)) where range.contains(x): return value
        case (.string(let choices), .string(let s)) where choices.isEmpty ? !s.isEmpty : choices.contains(s):
            return value
        case (.optionalString, .string(let s)): return s.isEmpty ? .null : value
        case (.optionalString, .null): return value
        case (.growingNumbers(let range, let maxCount), .numbers(let xs))
        where !xs.isEmpty && xs.count <= maxCount && xs.allSatisfy(range.contains)
            && zip(xs, xs.dropFirst()).allSatisfy({ $0 <= $1 }):
            return value
        case (.growingNumbers, .integer(let n)): return check(.numbers([Double(n)]))
        case (.growingNumbers, .number(let x)): return check(.numbers([x]))
        default: return nil
        }
    }

    /// What the key accepts, for error messages: "must be between 1 and 50".
    var requirement: String {
        switch kind {
        case .integer(let range): "must be between \(range.lowerBound) and \(range.upperBound), a whole number"
        case .number(let range):
            "must be a number between \(SettingValue.render(range.lowerBound)) and \(SettingValue.render(range.upperBound))"
        case .string(let choices) where choices.isEmpty: "must be non-empty text"
        case .string(let choices): "must be one of \(choices.joined(separator: ", "))"
        case .optionalString: "must be text (a path) or null"
        case .growingNumbers(let range, let maxCount):
            "must be 1 to \(maxCount) numbers between \(SettingValue.render(range.lowerBound)) and "
                + "\(SettingValue.render(range.upperBound)), each at least the one before"
        }
    }

    /// Parses text from the environment or a flag (lists comma-separated).
    func parse(text: String) -> SettingValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .integer: return Int(trimmed).flatMap { check(.integer($0)) }
        case .number: return Double(trimmed).flatMap { check(.number($0)) }
        case .string: return check(.string(trimmed))
        case .optionalString: return check(.string(text))
        case .growingNumbers:
            let parts = trimmed.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
            return check(.numbers(parts.compactMap { $0 }))
        }
    }
}

extension SettingValue {
    /// A number as JSON writes it: `150`, `0.5`.
    static func render(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int(x)) }
        return String(x)
    }

    /// The value as JSON text.
    var json: String {
        switch self {
        case .integer(let n): return String(n)
        case .number(let x): return Self.render(x)
        case .string(let s):
            var out = ""
            JSONLogHandler.appendQuoted(s, to: &out)
            return out
        case .numbers(let xs): return "[" + xs.map(Self.render).joined(separator: ", ") + "]"
        case .null: return "null"
        }
    }
}

extension SettingKey {
    /// The default as docs and help show it (the thread count depends on the machine, so it is a rule there).
    var defaultText: String {
        switch name {
        case "http.threads": "2 per core, at least 4"
        case "http.handler_threads": "4 per core, at least 8"
        default: defaultValue.json
        }
    }

    /// The reference table of docs/configuration.md, one row per key (`cab serve --config-reference` prints it;
    /// a test checks that the document holds every row).
    static var referenceTable: String {
        var rows = [
            "| key | default | environment | flag | meaning |",
            "| --- | --- | --- | --- | --- |",
        ]
        for key in all {
            let accepts = key.requirement.replacingOccurrences(of: "must be ", with: "")
            rows.append(
                "| `\(key.name)` | `\(key.defaultText)` | `\(key.environment)` | \(key.flag.map { "`--\($0)`" } ?? "") | "
                    + "\(key.help) (\(accepts)) |")
        }
        return rows.joined(separator: "\n")
    }
}
