/// The fields of an `INFO` reply (`INFO memory`, `INFO cpu`): `name:value` lines under `# Section` headings.
public struct RedisInfo: Sendable, Equatable {
    /// Every field by name, as text.
    public let fields: [String: String]

    /// Parses `INFO`'s text; lines without a colon (headings, blank lines) are skipped.
    public init(_ text: String) {
        var fields: [String: String] = [:]
        // `\.isNewline`: INFO ends its lines with CRLF, which Swift reads as one Character.
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        self.fields = fields
    }

    /// A field as an integer (`used_memory`), nil when missing or not a whole number.
    public func integer(_ name: String) -> Int64? { fields[name].flatMap { Int64($0) } }

    /// A field as a number (`used_cpu_sys`), nil when missing or not a number.
    public func number(_ name: String) -> Double? { fields[name].flatMap { Double($0) } }

    /// Bytes the server allocated (`used_memory`).
    public var usedMemoryBytes: Int64? { integer("used_memory") }

    /// CPU seconds the server used, system plus user (`used_cpu_sys` + `used_cpu_user`).
    public var usedCPUSeconds: Double? {
        guard let system = number("used_cpu_sys"), let user = number("used_cpu_user") else { return nil }
        return system + user
    }
}
