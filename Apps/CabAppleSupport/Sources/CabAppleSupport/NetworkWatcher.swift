import Network

/// Calls back on the main actor when the network comes back (`NWPathMonitor`), so queued positions go at once.
@MainActor
public final class NetworkWatcher {
    private let monitor = NWPathMonitor()
    private var wasSatisfied = true

    /// Watches until released; `onAvailable` runs each time the path becomes usable again.
    public init(onAvailable: @escaping @MainActor () -> Void) {
        monitor.pathUpdateHandler = { [weak self] path in
            let satisfied = path.status == .satisfied
            MainActor.assumeIsolated {  // the monitor runs on the main queue
                guard let self else { return }
                if satisfied && !self.wasSatisfied { onAvailable() }
                self.wasSatisfied = satisfied
            }
        }
        monitor.start(queue: .main)
    }

    deinit { monitor.cancel() }
}
