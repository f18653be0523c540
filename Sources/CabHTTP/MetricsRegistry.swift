import Synchronization

/// Counters, gauges and histograms with labels, rendered in the Prometheus text exposition format (0.0.4).
///
/// Any module registers its own metrics on the app's registry; registering a name again returns the same metric:
/// ```swift
/// let dropped = metrics.counter("tracking_fixes_dropped_total", help: "Fixes dropped, by reason.",
///                               labelNames: ["reason"])
/// dropped.increment(["reason": "stale"])
/// ```
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[String: MetricFamily]>([:])

    /// An empty registry.
    public init() {}

    /// The counter `name` (created on first use). Counter names end in `_total` by convention.
    public func counter(_ name: String, help: String, labelNames: [String] = []) -> Counter {
        Counter(family: family(name, .counter, help, labelNames, buckets: []))
    }

    /// The gauge `name` (created on first use): a value that goes up and down.
    public func gauge(_ name: String, help: String, labelNames: [String] = []) -> Gauge {
        Gauge(family: family(name, .gauge, help, labelNames, buckets: []))
    }

    /// The histogram `name` (created on first use) with upper bounds `buckets` (ascending, `+Inf` implied).
    public func histogram(
        _ name: String, help: String, labelNames: [String] = [], buckets: [Double] = Histogram.defaultBuckets
    ) -> Histogram {
        precondition(zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 }, "histogram buckets must ascend")
        return Histogram(family: family(name, .histogram, help, labelNames, buckets: buckets))
    }

    private func family(
        _ name: String, _ kind: MetricFamily.Kind, _ help: String, _ labelNames: [String],
        buckets: [Double]
    ) -> MetricFamily {
        precondition(MetricFamily.isValidName(name), "invalid metric name \(name)")
        precondition(labelNames.allSatisfy(MetricFamily.isValidName), "invalid label name in \(labelNames)")
        return families.withLock { families in
            if let existing = families[name] {
                precondition(
                    existing.kind == kind && existing.labelNames == labelNames,
                    "metric \(name) registered twice with different kinds or labels")
                return existing
            }
            let created = MetricFamily(name: name, kind: kind, help: help, labelNames: labelNames, buckets: buckets)
            families[name] = created
            return created
        }
    }

    /// Every metric in the Prometheus text format, families sorted by name.
    public func render() -> String {
        let all = families.withLock { $0.values.sorted { $0.name < $1.name } }
        var out = ""
        for family in all { family.render(into: &out) }
        return out
    }
}

/// A value that only goes up (`_total`).
public struct Counter: Sendable {
    let family: MetricFamily

    /// Adds `amount` (not negative) to the series with `labels` (every declared label name, no others).
    public func increment(_ labels: [String: String] = [:], by amount: Double = 1) {
        increment(labelValues: family.key(labels), by: amount)
    }

    /// `increment` with the label values in the order the labels were declared.
    func increment(labelValues: [String], by amount: Double = 1) {
        precondition(amount >= 0, "a counter cannot go down")
        family.update(labelValues: labelValues) { $0.value += amount }
    }

    /// The current value of the series with `labels` (0 if never touched).
    public func value(_ labels: [String: String] = [:]) -> Double { family.series(labels)?.value ?? 0 }
}

/// A value that goes up and down (connected clients, queue length).
public struct Gauge: Sendable {
    let family: MetricFamily

    /// Sets the series with `labels` to `value`.
    public func set(_ value: Double, _ labels: [String: String] = [:]) {
        family.update(labelValues: family.key(labels)) { $0.value = value }
    }

    /// Adds `amount` (may be negative) to the series with `labels`.
    public func add(_ amount: Double, _ labels: [String: String] = [:]) {
        family.update(labelValues: family.key(labels)) { $0.value += amount }
    }

    /// The current value of the series with `labels`.
    public func value(_ labels: [String: String] = [:]) -> Double { family.series(labels)?.value ?? 0 }
}

/// Observations counted into buckets (latencies, sizes).
public struct Histogram: Sendable {
    let family: MetricFamily

    /// Prometheus' default latency buckets, in seconds.
    public static let defaultBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Records `value` in the series with `labels`.
    public func observe(_ value: Double, _ labels: [String: String] = [:]) {
        observe(value, labelValues: family.key(labels))
    }

    /// `observe` with the label values in the order the labels were declared.
    func observe(_ value: Double, labelValues: [String]) {
        let index = family.buckets.firstIndex { value <= $0 } ?? family.buckets.count
        family.update(labelValues: labelValues) { series in
            if series.bucketCounts.isEmpty {
                series.bucketCounts = Array(repeating: 0, count: family.buckets.count + 1)
            }
            series.bucketCounts[index] += 1
            series.value += value
            series.count += 1
        }
    }

    /// How many observations the series with `labels` holds.
    public func count(_ labels: [String: String] = [:]) -> Int { family.series(labels)?.count ?? 0 }
}
