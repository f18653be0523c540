import Dispatch
import Synchronization

/// Calls `DispatchCoordinator.tick()` on a repeating timer (`cab serve`); tests call `tick()` themselves.
public final class DispatchTicker: Sendable {
    /// `@unchecked Sendable` box: a dispatch source is safe to cancel from any thread.
    private struct Source: @unchecked Sendable { let timer: any DispatchSourceTimer }
    private static let queue = DispatchQueue(label: "swiftcab.dispatch.tick")
    private let source: Mutex<Source?> = Mutex(nil)

    /// A stopped ticker.
    public init() {}

    /// Ticks `coordinator` every `interval` until `stop()`.
    public func start(_ coordinator: DispatchCoordinator, every interval: Duration = .milliseconds(500)) {
        let timer = DispatchSource.makeTimerSource(queue: Self.queue)
        let nanoseconds = Int(interval / .nanoseconds(1))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler { [weak coordinator] in coordinator?.tick() }
        timer.resume()
        source.withLock {
            $0?.timer.cancel()
            $0 = Source(timer: timer)
        }
    }

    /// Stops ticking.
    public func stop() {
        source.withLock {
            $0?.timer.cancel()
            $0 = nil
        }
    }
}
