/// When a `LocationReporter` sends, and how it queues and retries.
public struct LocationReporterConfiguration: Sendable, Hashable {
    /// A sample nearer than this to the last one kept is skipped (unless it is a sharp turn).
    public var minDistanceMeters: Double
    /// At most one upload of new positions per this many seconds (a sharp turn may go sooner).
    public var minIntervalSeconds: Double
    /// A heading change larger than this from the last kept sample is a sharp turn: kept and sent at once.
    public var sharpTurnDegrees: Double
    /// A standing driver still reports this often, so the server does not consider it gone.
    public var maxSilenceSeconds: Double
    /// The most fixes kept while offline; the oldest are dropped beyond it.
    public var queueCapacity: Int
    /// The most fixes in one upload (the server takes up to 100).
    public var batchSize: Int
    /// The first retry delay after a failed upload; it doubles per failure.
    public var initialBackoffSeconds: Double
    /// The longest retry delay.
    public var maxBackoffSeconds: Double

    /// Creates a configuration; the defaults are the origin app's (20 m, 20 s).
    public init(
        minDistanceMeters: Double = 20, minIntervalSeconds: Double = 20, sharpTurnDegrees: Double = 45,
        maxSilenceSeconds: Double = 60, queueCapacity: Int = 5_000, batchSize: Int = 100,
        initialBackoffSeconds: Double = 2, maxBackoffSeconds: Double = 300
    ) {
        precondition(queueCapacity > 0 && (1...100).contains(batchSize), "the queue and batches need room")
        precondition(initialBackoffSeconds > 0 && maxBackoffSeconds >= initialBackoffSeconds, "back-off must grow")
        self.minDistanceMeters = minDistanceMeters
        self.minIntervalSeconds = minIntervalSeconds
        self.sharpTurnDegrees = sharpTurnDegrees
        self.maxSilenceSeconds = maxSilenceSeconds
        self.queueCapacity = queueCapacity
        self.batchSize = batchSize
        self.initialBackoffSeconds = initialBackoffSeconds
        self.maxBackoffSeconds = maxBackoffSeconds
    }
}
