/// The server's rules for accepting a driver's fixes.
public struct IngestConfiguration: Sendable, Hashable {
    /// Fixes whose accuracy radius is larger than this are dropped.
    public var maxAccuracyMeters: Double
    /// A fix that would need a faster speed than this from the last applied fix is dropped.
    public var maxSpeedMetersPerSecond: Double
    /// How far ahead of "now" a fix's time may be (device clocks drift) before it is dropped as from the future.
    public var futureToleranceMilliseconds: Int64
    /// Batches a driver may send in a burst (token bucket capacity; one token per batch).
    public var rateLimitBurst: Double
    /// Batches per second a driver may send over time (token bucket refill rate).
    public var rateLimitBatchesPerSecond: Double

    /// Creates a configuration; the defaults suit a city's taxis reporting every few seconds.
    public init(
        maxAccuracyMeters: Double = 100,
        maxSpeedMetersPerSecond: Double = 70,
        futureToleranceMilliseconds: Int64 = 5_000,
        rateLimitBurst: Double = 10,
        rateLimitBatchesPerSecond: Double = 1
    ) {
        precondition(maxAccuracyMeters > 0 && maxSpeedMetersPerSecond > 0, "thresholds must be positive")
        precondition(futureToleranceMilliseconds >= 0, "the future tolerance cannot be negative")
        precondition(rateLimitBurst >= 1 && rateLimitBatchesPerSecond > 0, "the rate limit must admit a batch")
        self.maxAccuracyMeters = maxAccuracyMeters
        self.maxSpeedMetersPerSecond = maxSpeedMetersPerSecond
        self.futureToleranceMilliseconds = futureToleranceMilliseconds
        self.rateLimitBurst = rateLimitBurst
        self.rateLimitBatchesPerSecond = rateLimitBatchesPerSecond
    }
}
