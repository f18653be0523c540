import CabGeo
import Foundation

/// What a `LocationReporter` remembers across restarts (the file `FileReporterStore` writes).
public struct ReporterSnapshot: Hashable, Sendable, Codable {
    /// The last sample kept: the reference for the distance filter and sharp turns.
    public var lastKept: ReportedFix?
    /// The newest fix the server accepted.
    public var lastUploaded: ReportedFix?
    /// When that upload happened.
    public var lastUploadAt: Date?
    /// Fixes waiting to be sent, oldest first.
    public var queue: [ReportedFix]
    /// The sequence number the next kept sample gets.
    public var nextSequence: Int64
    /// Fixes dropped because the queue was full.
    public var droppedFromQueue: Int

    /// A reporter that has never run.
    public init(
        lastKept: ReportedFix? = nil, lastUploaded: ReportedFix? = nil, lastUploadAt: Date? = nil,
        queue: [ReportedFix] = [], nextSequence: Int64 = 1, droppedFromQueue: Int = 0
    ) {
        self.lastKept = lastKept
        self.lastUploaded = lastUploaded
        self.lastUploadAt = lastUploadAt
        self.queue = queue
        self.nextSequence = nextSequence
        self.droppedFromQueue = droppedFromQueue
    }
}

/// How an upload ended, as the transport reports it.
public enum UploadResult: Hashable, Sendable {
    /// The server took the batch.
    case accepted
    /// The server asked to wait (429 with `Retry-After`).
    case rateLimited(retryAfterSeconds: Double)
    /// The server refused the batch for good (a 4xx other than 401, 403, 408 and 429): it is dropped.
    case rejected
    /// No answer, or a transient error (offline, timeout, 5xx, bad token): the batch stays and is retried later.
    case failed
}

/// The reporter's decisions without I/O: which samples to keep, when to upload which batch, when to retry.
///
/// Kept samples join a bounded FIFO queue (the oldest dropped when full). An upload is due when the queue has
/// fixes, none is in flight, no back-off is running, and either the interval since the last upload has passed,
/// a sharp turn is queued, or the last batch was full (draining a backlog). Failures back off exponentially.
public struct ReporterStateMachine: Sendable {
    /// What the owner must do, in order.
    public enum Action: Hashable, Sendable {
        /// Write this snapshot to the store.
        case persist(ReporterSnapshot)
        /// Send this batch, then call `uploadFinished`.
        case upload([ReportedFix])
    }

    /// The rules.
    public let configuration: LocationReporterConfiguration
    /// The state that survives restarts.
    public private(set) var snapshot: ReporterSnapshot
    /// Failed uploads in a row.
    public private(set) var consecutiveFailures = 0
    /// No upload before this time (back-off or `Retry-After`).
    public private(set) var retryAt: Date?
    private var inFlightCount: Int?
    private var sharpTurnQueued = false
    private var drainingBacklog = false
    private var flushing = false
    private var lastSeen: LocationSample?

    /// A machine resuming from `snapshot`.
    public init(configuration: LocationReporterConfiguration = .init(), restoring snapshot: ReporterSnapshot = .init())
    {
        self.configuration = configuration
        self.snapshot = snapshot
    }

    /// True while a batch is being sent.
    public var isUploading: Bool { inFlightCount != nil }

    /// When the owner should call `poll` next (throttle window or back-off ending); nil when nothing waits.
    public var nextWakeDate: Date? {
        guard inFlightCount == nil, !snapshot.queue.isEmpty else { return nil }
        if let retryAt { return retryAt }
        return snapshot.lastUploadAt.map { $0.addingTimeInterval(configuration.minIntervalSeconds) }
    }

    /// Takes a raw sample from the device at `now`. A `forced` sample is kept even when the distance filter
    /// would skip it (the position at a trip's start, where the fare's trail begins).
    public mutating func receive(_ sample: LocationSample, now: Date, forced: Bool = false) -> [Action] {
        if sample.coordinate.isValid, sample.accuracyMeters.isFinite, sample.time > (lastSeen?.time ?? .distantPast) {
            lastSeen = sample
        }
        let valid = sample.coordinate.isValid && sample.accuracyMeters.isFinite
        let newer = sample.time > (snapshot.lastKept?.sample.time ?? .distantPast)
        guard let turn = forced && valid && newer ? false : shouldKeep(sample) else { return poll(now: now) }
        return keep(sample, sharpTurn: turn) + poll(now: now)
    }

    /// Sends everything at once, oldest first, ignoring the throttle and any back-off: the newest sample too,
    /// even when the distance filter skipped it. For the moment before `Complete`, whose fare is the server's
    /// trail: a fix left in the queue is road not paid for (issue 13, defect 1). The flush ends when the queue is
    /// empty (`isFlushed`) or an upload fails.
    public mutating func flush(now: Date) -> [Action] {
        var actions: [Action] = []
        if let seen = lastSeen, seen.time > (snapshot.lastKept?.sample.time ?? .distantPast) {
            actions = keep(seen, sharpTurn: false)
        }
        flushing = !snapshot.queue.isEmpty
        return actions + poll(now: now)
    }

    /// True when nothing waits to be sent and nothing is in flight.
    public var isFlushed: Bool { snapshot.queue.isEmpty && inFlightCount == nil }

    private mutating func keep(_ sample: LocationSample, sharpTurn turn: Bool) -> [Action] {
        let fix = ReportedFix(sample, sequence: snapshot.nextSequence)
        snapshot.nextSequence += 1
        snapshot.lastKept = fix
        snapshot.queue.append(fix)
        if snapshot.queue.count > configuration.queueCapacity {
            snapshot.queue.removeFirst()
            snapshot.droppedFromQueue += 1
            if let n = inFlightCount { inFlightCount = max(0, n - 1) }
        }
        sharpTurnQueued = sharpTurnQueued || turn
        return [.persist(snapshot)]
    }

    /// The upload due at `now`, if any (call it at `nextWakeDate`).
    public mutating func poll(now: Date) -> [Action] {
        guard inFlightCount == nil, !snapshot.queue.isEmpty else { return [] }
        if let retryAt, now < retryAt, !flushing { return [] }
        let intervalPassed =
            snapshot.lastUploadAt.map {
                now.timeIntervalSince($0) >= configuration.minIntervalSeconds
            } ?? true
        guard intervalPassed || sharpTurnQueued || drainingBacklog || retryAt != nil || flushing else { return [] }
        let batch = Array(snapshot.queue.prefix(configuration.batchSize))
        inFlightCount = batch.count
        sharpTurnQueued = false
        return [.upload(batch)]
    }

    /// The network is back (the platform said so): retry now instead of waiting out the back-off.
    public mutating func networkBecameAvailable(now: Date) -> [Action] {
        if retryAt != nil { retryAt = now }
        consecutiveFailures = 0
        return poll(now: now)
    }

    /// Records how the upload from the last `.upload` action ended.
    public mutating func uploadFinished(_ result: UploadResult, now: Date) -> [Action] {
        guard let count = inFlightCount else { preconditionFailure("uploadFinished without an upload in flight") }
        inFlightCount = nil
        switch result {
        case .accepted, .rejected:
            let sent = snapshot.queue.prefix(count)
            if result == .accepted, let last = sent.last {
                snapshot.lastUploaded = last
            }
            snapshot.lastUploadAt = now
            snapshot.queue.removeFirst(count)
            consecutiveFailures = 0
            retryAt = nil
            drainingBacklog = count == configuration.batchSize && !snapshot.queue.isEmpty
            flushing = flushing && !snapshot.queue.isEmpty
            return [.persist(snapshot)] + poll(now: now)
        case .rateLimited(let seconds):
            retryAt = now.addingTimeInterval(max(1, seconds))
            flushing = false
            return []
        case .failed:
            consecutiveFailures += 1
            let exponent = Double(min(consecutiveFailures - 1, 30))
            let delay = min(configuration.maxBackoffSeconds, configuration.initialBackoffSeconds * pow(2, exponent))
            retryAt = now.addingTimeInterval(delay)
            flushing = false
            return []
        }
    }

    /// nil to skip the sample; true when it is kept as a sharp turn.
    private func shouldKeep(_ sample: LocationSample) -> Bool? {
        guard sample.coordinate.isValid, sample.accuracyMeters.isFinite else { return nil }
        guard let last = snapshot.lastKept?.sample else { return false }
        guard sample.time > last.time else { return nil }
        if let h1 = last.headingDegrees, let h2 = sample.headingDegrees, (sample.speedMetersPerSecond ?? 2) >= 2,
            bearingDifferenceDegrees(h1, h2) > configuration.sharpTurnDegrees
        {
            return true
        }
        if last.coordinate.distanceMeters(to: sample.coordinate) >= configuration.minDistanceMeters { return false }
        if sample.time.timeIntervalSince(last.time) >= configuration.maxSilenceSeconds { return false }
        return nil
    }
}
