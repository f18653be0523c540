import Synchronization

/// One metric name with its help, label names and series; `Counter`, `Gauge` and `Histogram` are views of it.
final class MetricFamily: Sendable {
    enum Kind: String, Sendable { case counter, gauge, histogram }

    /// One labelled series. For histograms `bucketCounts` holds per-bucket (not cumulative) counts, `+Inf` last.
    struct Series: Sendable {
        var value: Double = 0
        var count = 0
        var bucketCounts: [Int] = []
    }

    let name: String
    let kind: Kind
    let help: String
    let labelNames: [String]
    let buckets: [Double]
    private let series = SpinningMutex<[[String]: Series]>([:])

    init(name: String, kind: Kind, help: String, labelNames: [String], buckets: [Double]) {
        self.name = name
        self.kind = kind
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":")
        }
    }

    /// The label values of `labels` in `labelNames` order (the series key); traps on missing or extra names.
    func key(_ labels: [String: String]) -> [String] {
        precondition(
            labels.count == labelNames.count && labelNames.allSatisfy { labels[$0] != nil },
            "metric \(name) takes labels \(labelNames), got \(labels.keys.sorted())")
        return labelNames.map { labels[$0]! }  // every name checked present just above
    }

    /// `update` with the label values already in `labelNames` order: the server's per-request path, which builds no
    /// dictionary.
    func update(labelValues: [String], _ change: (inout Series) -> Void) {
        precondition(labelValues.count == labelNames.count, "metric \(name) takes labels \(labelNames)")
        series.withLock { change(&$0[labelValues, default: Series()]) }
    }

    func series(_ labels: [String: String]) -> Series? {
        let key = key(labels)
        return series.withLock { $0[key] }
    }

    func render(into out: inout String) {
        let snapshot = series.withLock { $0.sorted { $0.key.lexicographicallyPrecedes($1.key) } }
        out += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for (values, series) in snapshot {
            let pairs = zip(labelNames, values).map { "\($0)=\"\(Self.escapeLabel($1))\"" }
            switch kind {
            case .counter, .gauge:
                out += "\(name)\(Self.braces(pairs)) \(Self.format(series.value))\n"
            case .histogram:
                var cumulative = 0
                for (index, count) in series.bucketCounts.enumerated() {
                    cumulative += count
                    let bound = index < buckets.count ? Self.format(buckets[index]) : "+Inf"
                    out += "\(name)_bucket\(Self.braces(pairs + ["le=\"\(bound)\""])) \(cumulative)\n"
                }
                out += "\(name)_sum\(Self.braces(pairs)) \(Self.format(series.value))\n"
                out += "\(name)_count\(Self.braces(pairs)) \(series.count)\n"
            }
        }
    }

    private static func braces(_ pairs: [String]) -> String {
        pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}"
    }

    private static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func escapeLabel(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }

    private static func escapeHelp(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for character in self { if character == target { out += replacement } else { out.append(character) } }
        return out
    }
}
