import Network

/// Calls back on the main actor when the network comes back (`NWPathMonitor`), so queued positions go at once.
@MainActor
public final class NetworkWatcher {
    private let monitor = Monitor()
    private var wasSatisfied = true

    /// Watches until released; `onAvailable` runs each time the path becomes usable again.
    public init(onAvailable: @escaping @MainActor @Sendable () -> Void) {
        // `pathUpdateHandler` is `@Sendable`; the monitor runs it on the main queue given to `start(queue:)`.
        monitor.path.pathUpdateHandler = { [weak self] path in
            let satisfied = path.status == .satisfied
            MainActor.assumeIsolated {
                guard let self else { return }
                if satisfied && !self.wasSatisfied { onAvailable() }
                self.wasSatisfied = satisfied
            }
        }
        monitor.path.start(queue: .main)
    }
}

/// Owns the `NWPathMonitor` and cancels it when released. A nonisolated class: its `deinit` may touch the
/// monitor, which a `@MainActor` class's nonisolated `deinit` may not in Swift 6 (the monitor is not `Sendable`).
private final class Monitor {
    let path = NWPathMonitor()
    deinit { path.cancel() }
}
