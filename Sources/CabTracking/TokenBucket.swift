/// A token bucket in 16 bytes: `capacity` tokens, refilled at `perSecond`, starting full.
struct TokenBucket: Sendable, Hashable {
    private var tokens: Double = .infinity
    private var updatedAtMilliseconds: Int64 = 0

    /// Takes one token at `now`; nil on success, else the whole seconds to wait until one is available.
    mutating func take(now: Int64, capacity: Double, perSecond: Double) -> Int? {
        let elapsedSeconds = Double(max(0, now - updatedAtMilliseconds)) / 1000
        tokens = min(capacity, tokens + elapsedSeconds * perSecond)
        updatedAtMilliseconds = max(updatedAtMilliseconds, now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return max(1, Int(((1 - tokens) / perSecond).rounded(.up)))
    }
}
