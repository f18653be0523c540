/// A counter the application increments (a port: `CabAPI` backs it with the `/metrics` registry).
public protocol CounterMetric: Sendable {
    /// Adds `amount` to the series with `labels`.
    func increment(labels: [String: String], by amount: Double)
}

/// A gauge the application sets.
public protocol GaugeMetric: Sendable {
    /// Sets the series with `labels` to `value`.
    func set(to value: Double, labels: [String: String])
}

/// Where the application's counters and gauges come from (a port, so the application needs no metrics server).
public protocol MetricsFactory: Sendable {
    /// The counter `name` (registered once; a second call returns the same family).
    func makeCounter(_ name: String, help: String, labelNames: [String]) -> any CounterMetric
    /// The gauge `name`.
    func makeGauge(_ name: String, help: String, labelNames: [String]) -> any GaugeMetric
}

extension CounterMetric {
    /// Adds `amount` (default 1) to the series with `labels` (default none).
    public func increment(_ labels: [String: String] = [:], by amount: Double = 1) {
        increment(labels: labels, by: amount)
    }
}

extension GaugeMetric {
    /// Sets the unlabelled series to `value`.
    public func set(_ value: Double) { set(to: value, labels: [:]) }
}

extension MetricsFactory {
    /// An unlabelled counter.
    public func makeCounter(_ name: String, help: String) -> any CounterMetric {
        makeCounter(name, help: help, labelNames: [])
    }
    /// An unlabelled gauge.
    public func makeGauge(_ name: String, help: String) -> any GaugeMetric {
        makeGauge(name, help: help, labelNames: [])
    }
}
