/// Ready-made handlers every SwiftCab server mounts.
public enum StandardHandlers {
    /// `GET /healthz`: `{"status":"ok"}` while the process serves requests.
    public static let health: HTTPHandler = { _ in
        .bytes(Array(#"{"status":"ok"}"#.utf8), contentType: "application/json")
    }

    /// `GET /metrics`: `registry` in the Prometheus text exposition format.
    public static func metrics(_ registry: MetricsRegistry) -> HTTPHandler {
        { _ in .text(registry.render(), contentType: "text/plain; version=0.0.4; charset=utf-8") }
    }
}

extension Router {
    /// Adds `GET /healthz` and `GET /metrics` (serving `registry`), both inline: they answer while the handler
    /// pool is busy.
    public mutating func addHealthAndMetrics(_ registry: MetricsRegistry) {
        get("/healthz", execution: .inline, handler: StandardHandlers.health)
        get("/metrics", execution: .inline, handler: StandardHandlers.metrics(registry))
    }
}
