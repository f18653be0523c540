import CabCore
import CabHTTP

// The application's metrics port (`CabCore.MetricsFactory`) on the registry `/metrics` serves. Here because
// neither CabHTTP (no cab types) nor CabCore (no HTTP) may see the other: CabAPI is the one place that sees both.

extension MetricsRegistry: MetricsFactory {
    public func makeCounter(_ name: String, help: String, labelNames: [String]) -> any CounterMetric {
        counter(name, help: help, labelNames: labelNames)
    }

    public func makeGauge(_ name: String, help: String, labelNames: [String]) -> any GaugeMetric {
        gauge(name, help: help, labelNames: labelNames)
    }
}

extension Counter: CounterMetric {
    public func increment(labels: [String: String], by amount: Double) { increment(labels, by: amount) }
}

extension Gauge: GaugeMetric {
    public func set(to value: Double, labels: [String: String]) { set(value, labels) }
}
