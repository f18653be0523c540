import CabGeo

/// Every driver's latest position and ingestion state, shared by the ingest path (one writer at a time) and
/// searches (many readers at once) behind a reader-writer lock.
///
/// The owner appends `IngestOutcome.accepted` to history and publishes `latest` to the `FleetBroadcaster`.
public final class LiveFleet<Key: Hashable & Sendable>: Sendable {
    /// The ingestion rules.
    public let ingestConfiguration: IngestConfiguration

    struct State {
        var index: NearestDriverIndex<Key>
        var ingest: [DriverIngestState] = []  // by the index's slot
        var dropped = DropCounts()
        var acceptedCount = 0
        /// Statuses set before the driver's first position, applied when it arrives.
        var statusBeforeFirstFix: [Key: DriverStatus] = [:]
    }

    private let state: ReaderWriterLock<State>

    /// An empty fleet.
    public init(
        ingest: IngestConfiguration = IngestConfiguration(),
        index: DriverIndexConfiguration = DriverIndexConfiguration()
    ) {
        ingestConfiguration = ingest
        state = ReaderWriterLock(State(index: NearestDriverIndex(configuration: index)))
    }

    /// Applies the ingestion rules to `fixes` from `driver` received at `now` (Unix ms) and moves the driver;
    /// a driver new to the fleet gets `vehicleClass`, and its rules resume after `resumingAfter` (the newest
    /// fix stored before a restart) so that an old fix is not accepted again.
    public func ingest(
        _ fixes: [LocationFix], from driver: Key, vehicleClass: VehicleClass = .standard,
        resumingAfter previous: LocationFix? = nil, now: Int64
    ) -> IngestOutcome {
        state.withWriteLock {
            apply(fixes, from: driver, vehicleClass: vehicleClass, resumingAfter: previous, now: now, to: &$0)
        }
    }

    /// The request path's form of `ingest`: for a driver already in the fleet, applies `fixes` and returns the
    /// outcome with the driver's position afterwards, under one lock acquisition; nil (nothing applied) for a
    /// driver new to the fleet, whom the caller ingests with its vehicle class.
    public func ingestKnown(_ fixes: [LocationFix], from driver: Key, now: Int64) -> (IngestOutcome, DriverPosition?)? {
        state.withWriteLock { state in
            guard state.index.slotByKey[driver] != nil else { return nil }
            let outcome = apply(fixes, from: driver, vehicleClass: .standard, now: now, to: &state)
            return (outcome, outcome.latest == nil ? nil : state.index.position(of: driver))
        }
    }

    /// Applies several drivers' batches under one lock acquisition: the fast path for a busy server.
    public func ingest(_ batches: [(driver: Key, fixes: [LocationFix])], now: Int64) -> [IngestOutcome] {
        state.withWriteLock { state in
            batches.map { apply($0.fixes, from: $0.driver, vehicleClass: .standard, now: now, to: &state) }
        }
    }

    private func apply(
        _ fixes: [LocationFix], from driver: Key, vehicleClass: VehicleClass,
        resumingAfter previous: LocationFix? = nil,
        now: Int64, to state: inout State
    ) -> IngestOutcome {
        var outcome: IngestOutcome
        if let slot = state.index.slotByKey[driver] {
            outcome = state.ingest[Int(slot)].ingest(fixes, now: now, configuration: ingestConfiguration)
            if let latest = outcome.latest { move(driver, to: latest, in: &state) }
        } else {
            var fresh =
                previous.map { DriverIngestState(resumingAfter: $0.timeMilliseconds, at: $0.coordinate) }
                ?? DriverIngestState()
            outcome = fresh.ingest(fixes, now: now, configuration: ingestConfiguration)
            if let latest = outcome.latest {
                let slot = Int(move(driver, to: latest, vehicleClass: vehicleClass, in: &state))
                if slot == state.ingest.count { state.ingest.append(fresh) } else { state.ingest[slot] = fresh }
                if !state.statusBeforeFirstFix.isEmpty,
                    let status = state.statusBeforeFirstFix.removeValue(forKey: driver)
                {
                    state.index.setStatus(status, for: driver)
                }
            }
        }
        state.dropped.add(outcome.dropped)
        state.acceptedCount += outcome.accepted.count
        return outcome
    }

    @discardableResult
    private func move(
        _ driver: Key, to fix: LocationFix, vehicleClass: VehicleClass = .standard, in state: inout State
    ) -> Int32 {
        state.index.update(
            driver, coordinate: fix.coordinate, timeMilliseconds: fix.timeMilliseconds,
            headingDegrees: fix.headingDegrees, speedMetersPerSecond: fix.speedMetersPerSecond,
            vehicleClass: vehicleClass)
    }

    /// Applies positions that other nodes accepted (a cluster's replica of the fleet), under one lock acquisition:
    /// each replaces the driver's position only when it is newer than the one known here (the newest fix wins),
    /// brings its status and vehicle class, and moves the driver's ingestion state forward, so that a fix older
    /// than it posted here later is refused as out of order. The rate limit's bucket stays this node's own.
    /// - Returns: the positions applied, as the fleet now holds them (older ones are left out).
    public func applyReplicated(
        _ batch: [(driver: Key, position: DriverPosition)]
    ) -> [(driver: Key, position: DriverPosition)] {
        state.withWriteLock { state in
            var applied: [(driver: Key, position: DriverPosition)] = []
            for (driver, p) in batch where p.coordinate.isValid {
                let known = state.index.slotByKey[driver]
                if known != nil, let current = state.index.position(of: driver),
                    current.timeMilliseconds >= p.timeMilliseconds
                {
                    // The same fix again with another status: a status change made on another node (a driver
                    // going offline there, a trip ending there) travels with the driver's latest fix.
                    if current.timeMilliseconds == p.timeMilliseconds, current.status != p.status {
                        _ = state.index.setStatus(p.status, for: driver)
                        if let now = state.index.position(of: driver) { applied.append((driver, now)) }
                    }
                    continue
                }
                let slot = Int(
                    state.index.update(
                        driver, coordinate: p.coordinate, timeMilliseconds: p.timeMilliseconds,
                        headingDegrees: p.headingDegrees.map(Double.init), speedMetersPerSecond: p.speedMetersPerSecond,
                        vehicleClass: p.vehicleClass))
                if known == nil {
                    let fresh = DriverIngestState(resumingAfter: p.timeMilliseconds, at: p.coordinate)
                    if slot == state.ingest.count { state.ingest.append(fresh) } else { state.ingest[slot] = fresh }
                    state.statusBeforeFirstFix.removeValue(forKey: driver)
                } else {
                    state.ingest[slot].advance(toReplicated: p.timeMilliseconds, at: p.coordinate)
                    _ = state.index.setVehicleClass(p.vehicleClass, for: driver)
                }
                _ = state.index.setStatus(p.status, for: driver)
                if let now = state.index.position(of: driver) { applied.append((driver, now)) }
            }
            return applied
        }
    }

    /// The `k` nearest drivers to `point` that `filter` admits and that reported within the maximum age.
    public func nearest(
        to point: Coordinate, k: Int, filter: DriverFilter = .available, now: Int64
    ) -> [NearbyDriver<Key>] {
        state.withReadLock { $0.index.nearest(to: point, k: k, filter: filter, now: now) }
    }

    /// Every driver's latest position inside `box` (nil: all), however old: a fleet stream's snapshot.
    /// - Complexity: O(drivers).
    public func positions(in box: BoundingBox?) -> [(driver: Key, position: DriverPosition)] {
        state.withReadLock { state in
            state.index.slotByKey.keys.compactMap { driver in
                guard let p = state.index.position(of: driver), box?.contains(p.coordinate) ?? true else { return nil }
                return (driver, p)
            }
        }
    }

    /// `driver`'s latest position, however old; nil when it never reported.
    public func position(of driver: Key) -> DriverPosition? {
        state.withReadLock { $0.index.position(of: driver) }
    }

    /// Sets `driver`'s status (dispatch calls this). For a driver that has not reported yet the status is kept
    /// and applied with its first position; returns false in that case.
    @discardableResult
    public func setStatus(_ status: DriverStatus, for driver: Key) -> Bool {
        state.withWriteLock { state in
            if state.index.setStatus(status, for: driver) { return true }
            state.statusBeforeFirstFix[driver] = status
            return false
        }
    }

    /// `driver`'s status: from its position, or the one set before its first fix; nil when neither exists.
    public func status(of driver: Key) -> DriverStatus? {
        state.withReadLock { $0.index.position(of: driver)?.status ?? $0.statusBeforeFirstFix[driver] }
    }

    /// Sets `driver`'s vehicle class; false when the driver never reported.
    @discardableResult
    public func setVehicleClass(_ type: VehicleClass, for driver: Key) -> Bool {
        state.withWriteLock { $0.index.setVehicleClass(type, for: driver) }
    }

    /// How many drivers have a position.
    public var count: Int { state.withReadLock { $0.index.count } }

    /// Fixes dropped since start, by reason.
    public var dropCounts: DropCounts { state.withReadLock { $0.dropped } }

    /// Fixes accepted since start.
    public var acceptedCount: Int { state.withReadLock { $0.acceptedCount } }

    /// Heap bytes held for drivers (index plus ingestion state), and the driver count, for `bytes per driver`.
    public var memoryFootprint: (heapBytes: Int, drivers: Int) {
        state.withReadLock { state in
            let ingestBytes = 32 + state.ingest.capacity * MemoryLayout<DriverIngestState>.stride
            return (state.index.heapBytes + ingestBytes, state.index.count)
        }
    }
}

extension LiveFleet {
    /// Runs `body` with shared access to the index (benchmarks and diagnostics).
    package func withIndex<T>(_ body: (NearestDriverIndex<Key>) -> T) -> T {
        state.withReadLock { body($0.index) }
    }
}
