import CabGeo

/// What one batch of fixes did to a driver (`DriverIngestState.ingest`).
public struct IngestOutcome: Sendable, Hashable {
    /// The fixes applied, oldest first: append them to the driver's history.
    public var accepted: [LocationFix]
    /// The newest applied fix after this batch when the batch applied any; nil when the latest did not change.
    public var latest: LocationFix?
    /// The fixes dropped, by reason.
    public var dropped: DropCounts
    /// Set when the rate limit refused the whole batch: the seconds to wait before retrying (`Retry-After`).
    public var retryAfterSeconds: Int?

    /// Creates an outcome.
    public init(
        accepted: [LocationFix] = [], latest: LocationFix? = nil, dropped: DropCounts = DropCounts(),
        retryAfterSeconds: Int? = nil
    ) {
        self.accepted = accepted
        self.latest = latest
        self.dropped = dropped
        self.retryAfterSeconds = retryAfterSeconds
    }
}

/// The ingestion rules for one driver, as a sans-I/O state machine: it decides, the owner stores and publishes.
///
/// The rules, in order, for each fix of a batch sorted by time: the rate limit (one token per batch, refusing
/// the whole batch), then invalid numbers, duplicate (a time already applied: a retried upload), out of order
/// (older than the newest applied), future, inaccurate, impossible speed from the last applied fix.
///
/// It keeps 40 bytes per driver: the newest applied time and place, the token bucket, and the times of
/// the last batch that applied several fixes (so that retrying that batch counts duplicates, not drops).
public struct DriverIngestState: Sendable, Hashable {
    private var newestTimeMilliseconds: Int64 = .min
    private var recentBatchTimes: [Int64] = []
    private var bucket = TokenBucket()
    private var newestLatitudeE7: Int32 = 0  // 1e-7 degrees (about 1 cm), for the speed rule
    private var newestLongitudeE7: Int32 = 0

    /// A driver that has sent nothing yet.
    public init() {}

    /// A driver whose newest applied fix (before a restart) was at `timeMilliseconds` and `coordinate`: older
    /// or equal fixes are dropped as out of order or duplicates, as they were before the restart.
    public init(resumingAfter timeMilliseconds: Int64, at coordinate: Coordinate) {
        newestTimeMilliseconds = timeMilliseconds
        if coordinate.isValid {
            newestLatitudeE7 = Int32((coordinate.latitude * 1e7).rounded())
            newestLongitudeE7 = Int32((coordinate.longitude * 1e7).rounded())
        }
    }

    /// Moves the newest applied fix forward (never back) to one that another node accepted: later fixes here are
    /// judged against it (order, duplicates, speed); the rate limit's bucket is kept.
    public mutating func advance(toReplicated timeMilliseconds: Int64, at coordinate: Coordinate) {
        guard timeMilliseconds > newestTimeMilliseconds, coordinate.isValid else { return }
        newestTimeMilliseconds = timeMilliseconds
        newestLatitudeE7 = Int32((coordinate.latitude * 1e7).rounded())
        newestLongitudeE7 = Int32((coordinate.longitude * 1e7).rounded())
    }

    /// The time of the newest applied fix (Unix milliseconds); nil before the first.
    public var newestAppliedTimeMilliseconds: Int64? {
        newestTimeMilliseconds == .min ? nil : newestTimeMilliseconds
    }

    /// Applies the rules to `fixes` received at `now` (Unix milliseconds).
    /// - Complexity: O(n log n) for a batch of n fixes.
    public mutating func ingest(
        _ fixes: [LocationFix], now: Int64, configuration: IngestConfiguration
    ) -> IngestOutcome {
        var outcome = IngestOutcome()
        if let wait = bucket.take(
            now: now, capacity: configuration.rateLimitBurst, perSecond: configuration.rateLimitBatchesPerSecond)
        {
            outcome.dropped[.rateLimited] = fixes.count
            outcome.retryAfterSeconds = wait
            return outcome
        }
        let batchNewestBefore = newestTimeMilliseconds
        for fix in fixes.count > 1 ? fixes.sorted(by: { $0.timeMilliseconds < $1.timeMilliseconds }) : fixes {
            if let reason = dropReason(for: fix, now: now, batchNewestBefore: batchNewestBefore, configuration) {
                outcome.dropped[reason] += 1
                continue
            }
            newestTimeMilliseconds = fix.timeMilliseconds
            newestLatitudeE7 = Int32((fix.coordinate.latitude * 1e7).rounded())
            newestLongitudeE7 = Int32((fix.coordinate.longitude * 1e7).rounded())
            outcome.accepted.append(fix)
        }
        outcome.latest = outcome.accepted.last
        if outcome.accepted.count > 1 {
            recentBatchTimes = outcome.accepted.map(\.timeMilliseconds)
        }
        return outcome
    }

    private func dropReason(
        for fix: LocationFix, now: Int64, batchNewestBefore: Int64, _ configuration: IngestConfiguration
    ) -> DropReason? {
        let time = fix.timeMilliseconds
        guard fix.coordinate.isValid, FixRanges.violation(in: fix) == nil else { return .invalid }
        if time == newestTimeMilliseconds || (time < batchNewestBefore && wasRecentlyApplied(time)) {
            return .duplicate
        }
        if time < newestTimeMilliseconds { return .outOfOrder }
        if time > now + configuration.futureToleranceMilliseconds { return .future }
        if fix.accuracyMeters > configuration.maxAccuracyMeters { return .inaccurate }
        if newestTimeMilliseconds != .min {
            let seconds = Double(time - newestTimeMilliseconds) / 1000
            let newest = Coordinate(
                latitude: Double(newestLatitudeE7) * 1e-7, longitude: Double(newestLongitudeE7) * 1e-7)
            let meters = newest.distanceMeters(to: fix.coordinate)
            if meters > configuration.maxSpeedMetersPerSecond * seconds { return .impossibleSpeed }
        }
        return nil
    }

    private func wasRecentlyApplied(_ time: Int64) -> Bool {
        var low = 0
        var high = recentBatchTimes.count
        while low < high {
            let mid = (low + high) / 2
            if recentBatchTimes[mid] < time { low = mid + 1 } else { high = mid }
        }
        return low < recentBatchTimes.count && recentBatchTimes[low] == time
    }
}
