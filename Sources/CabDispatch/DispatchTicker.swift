import Dispatch
import Synchronization

/// Calls `DispatchCoordinator.tick()` on a repeating timer (`cab serve`), and ends each batch of offers when its
/// timer is due rather than at the next tick (a one-shot wake-up per batch timer, on the same queue); tests call
/// `tick()` themselves.
public final class DispatchTicker: Sendable {
    /// `@unchecked Sendable` box: a dispatch source is safe to cancel from any thread, and the coordinator is
    /// Sendable (the box holds it weakly, so the ticker does not keep it alive).
    private struct Source: @unchecked Sendable {
        let timer: any DispatchSourceTimer
        weak var coordinator: DispatchCoordinator?
    }
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
        // Before the wake-ups the tick ended batches up to its interval late (offer timeouts p50 ~270 ms late in
        // the chaos runs); a wake-up at each timer ends them when due.
        coordinator.onTimerSet { [weak self, weak coordinator] at in
            guard let coordinator else { return }
            let delay = max(0, Int(coordinator.millisecondsUntil(at)))
            Self.queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self, weak coordinator] in
                // Not after `stop()`: the store may be closing.
                guard let self, self.source.withLock({ $0 != nil }) else { return }
                coordinator?.fireDueBatchTimers()
            }
        }
        source.withLock {
            $0?.timer.cancel()
            $0 = Source(timer: timer, coordinator: coordinator)
        }
    }

    /// Stops ticking.
    public func stop() {
        source.withLock {
            $0?.timer.cancel()
            $0?.coordinator?.onTimerSet(nil)
            $0 = nil
        }
    }
}
