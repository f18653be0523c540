/// A token bucket in 12 bytes: `capacity` tokens, refilled at `perSecond`, starting full.
struct TokenBucket: Sendable, Hashable {
    private var tokens: Float = .infinity
    private var updatedAtMilliseconds: Int64 = 0

    /// Takes one token at `now`; nil on success, else the whole seconds to wait until one is available.
    mutating func take(now: Int64, capacity: Double, perSecond: Double) -> Int? {
        let elapsedSeconds = Double(max(0, now - updatedAtMilliseconds)) / 1000
        let available = min(capacity, Double(tokens) + elapsedSeconds * perSecond)
        updatedAtMilliseconds = max(updatedAtMilliseconds, now)
        if available >= 1 {
            tokens = Float(available - 1)
            return nil
        }
        tokens = Float(available)
        return max(1, Int(((1 - available) / perSecond).rounded(.up)))
    }
}
