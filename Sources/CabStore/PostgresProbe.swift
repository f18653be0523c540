import CabPostgres
import Foundation

/// While the database is unavailable, tries to reach it every `intervalMilliseconds` (`SELECT 1` through the
/// pool), so the store reports its return (`StoreHealth`, `/readyz`) without waiting for a request to try.
/// Idle while the database is available.
final class PostgresProbe: @unchecked Sendable {
    // @unchecked Sendable: `closed` and `running` are guarded by `condition`; `pool` and `health` are Sendable.
    private let condition = NSCondition()
    private var closed = false
    private var running = true
    private let pool: PostgresPool
    private let health: StoreHealth
    private let interval: TimeInterval

    init(pool: PostgresPool, health: StoreHealth, intervalMilliseconds: Int) {
        self.pool = pool
        self.health = health
        interval = Double(max(intervalMilliseconds, 10)) / 1000
        let thread = Thread { [self] in run() }
        thread.name = "cab-pg-probe"
        thread.start()
    }

    /// Stops the probe and waits for its thread.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !closed {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            guard !closed else { break }
            guard !health.snapshot.isHealthy else { continue }
            condition.unlock()
            // A failure is the pool's to report (once); the probe only gives it the chance to see the return.
            _ = try? pool.withConnection { c in try c.query("SELECT 1") }
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
