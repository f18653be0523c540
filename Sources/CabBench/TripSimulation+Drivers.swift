import CabAPI
import CabCore
import CabGeo
import CabRouting

/// One simulated driver: where they are, the trip they drive and the leg they are on.
struct SimulatedDriver {
    enum Phase: Equatable {
        case idle
        case toPickup
        case atPickup(until: Instant)
        case toDropoff
    }

    var id: DriverID
    var position: Coordinate
    var lastReport = Instant.epoch
    var trip: BookingID?
    var pin = ""
    var phase = Phase.idle
    var leg: Leg?
    var decidedOffer: BookingID?
    var acceptAt: Instant?
    var cancelAt: Instant?
}

/// A stretch of road driven at the router's speeds: where the car is at any moment.
struct Leg {
    let geometry: [Coordinate]
    let cumulativeMeters: [Double]
    let start: Instant
    let durationMilliseconds: Int64

    init(_ geometry: [Coordinate], start: Instant, durationMilliseconds: Int) {
        self.geometry = geometry
        var total = 0.0
        var cumulative = [0.0]
        for (a, b) in zip(geometry, geometry.dropFirst()) {
            total += a.distanceMeters(to: b)
            cumulative.append(total)
        }
        cumulativeMeters = cumulative
        self.start = start
        self.durationMilliseconds = Int64(max(1_000, durationMilliseconds))
    }

    func isDone(at t: Instant) -> Bool { t.milliseconds(since: start) >= durationMilliseconds }

    func position(at t: Instant) -> Coordinate {
        let f = min(1, max(0, Double(t.milliseconds(since: start)) / Double(durationMilliseconds)))
        let target = f * (cumulativeMeters.last ?? 0)
        guard let i = cumulativeMeters.firstIndex(where: { $0 >= target }), i > 0 else { return geometry[0] }
        let span = cumulativeMeters[i] - cumulativeMeters[i - 1]
        let u = span > 0 ? (target - cumulativeMeters[i - 1]) / span : 1
        let a = geometry[i - 1]
        let b = geometry[i]
        return Coordinate(
            latitude: a.latitude + (b.latitude - a.latitude) * u,
            longitude: a.longitude + (b.longitude - a.longitude) * u)
    }
}

extension TripSimulation {
    /// One simulated second: riders who planned to cancel do; each driver answers offers, drives, arrives, starts,
    /// completes or cancels, and reports its position (every 5 s while moving, every 30 s while idle).
    func step() throws {
        let t = now
        let due = plannedCancels.filter { $0.at <= t }
        plannedCancels.removeAll { $0.at <= t }
        for (_, trip) in due {
            guard let b = try store.booking(trip), !b.status.isTerminal, b.status != .inProgress, b.status != .arrived
            else { continue }
            _ = try? coordinator.riderCancel(trip, by: .rider(b.riderID), reason: "simulated")
        }
        for i in drivers.indices {
            var d = drivers[i]
            try drive(&d, at: t)
            drivers[i] = d
        }
    }

    private func drive(_ d: inout SimulatedDriver, at t: Instant) throws {
        if let trip = d.trip {
            // Over, or taken back from this driver (cancelled by them, or their pickup went overdue).
            guard let b = try store.booking(trip), !b.status.isTerminal, b.driverID == d.id else {
                d.trip = nil
                d.phase = .idle
                d.leg = nil
                return
            }
            if let leg = d.leg {
                let p = leg.position(at: t)
                if t.milliseconds(since: d.lastReport) >= 5_000 || leg.isDone(at: t) { report(p, for: &d) }
            }
            switch d.phase {
            case .toPickup:
                if let at = d.cancelAt, t >= at {
                    _ = try? coordinator.redispatch(trip, by: .driver(d.id))  // hands the trip back
                    d.cancelAt = nil
                    d.trip = nil
                    d.phase = .idle
                    d.leg = nil
                } else if d.leg?.isDone(at: t) ?? true {
                    _ = try coordinator.handle(.arrive, trip, by: .driver(d.id))
                    d.phase = .atPickup(until: t.adding(seconds: 15))
                }
            case .atPickup(let until) where t >= until:
                _ = try coordinator.handle(.start(code: d.pin), trip, by: .driver(d.id))
                d.leg = leg(from: d.position, to: b.dropoff, at: t)
                d.phase = .toDropoff
            case .toDropoff where d.leg?.isDone(at: t) ?? true:
                _ = try coordinator.complete(trip, by: .driver(d.id))
                d.trip = nil
                d.phase = .idle
                d.leg = nil
            default:
                break
            }
            return
        }
        if t.milliseconds(since: d.lastReport) >= 30_000 { report(d.position, for: &d) }
        guard let offer = coordinator.openOffer(for: d.id) else { return }
        if d.decidedOffer != offer.tripID {
            d.decidedOffer = offer.tripID
            if chance(configuration.declineProbability) {
                _ = try? coordinator.decline(offer.tripID, by: d.id)
                report.declines += 1
            } else {
                d.acceptAt = t.adding(seconds: 1 + Int(random.next() % 4))
            }
        } else if let at = d.acceptAt, t >= at {
            d.acceptAt = nil
            guard let b = try? coordinator.accept(offer.tripID, by: d.id) else { return }
            d.trip = b.id
            d.pin = b.pin
            _ = try coordinator.handle(.depart, b.id, by: .driver(d.id))
            d.leg = leg(from: d.position, to: b.pickup, at: t)
            d.phase = .toPickup
            if chance(configuration.driverCancelProbability) {
                d.cancelAt = t.adding(seconds: 10 + Int(random.next() % 60))
            }
        }
    }

    func leg(from a: Coordinate, to b: Coordinate, at t: Instant) -> Leg {
        if let plan = try? routing.route(from: a, to: b) {
            return Leg([a] + plan.route.geometry + [b], start: t, durationMilliseconds: plan.route.durationMilliseconds)
        }
        return Leg([a, b], start: t, durationMilliseconds: Int(a.distanceMeters(to: b) * 100))  // 10 m/s off road
    }

    /// Every trip ended; each history chains from `book` to the booking's status; fares and cancellations set.
    func check() throws {
        var waits: [Double] = []
        for id in tripIDs {
            guard let b = try store.booking(id) else {
                report.inconsistencies.append("\(id) is missing")
                continue
            }
            report.finalStates[b.status.rawValue, default: 0] += 1
            if !b.status.isTerminal { report.inconsistencies.append("\(id) is still \(b.status.rawValue)") }
            let history = try store.history(id)
            if history.first?.event != .book || history.first?.from != nil {
                report.inconsistencies.append("\(id) history does not start with book")
            }
            for (a, c) in zip(history, history.dropFirst()) where c.from != a.to {
                report.inconsistencies.append(
                    "\(id) history jumps from \(a.to.rawValue) to \(c.from?.rawValue ?? "nil")")
            }
            if history.last?.to != b.status {
                report.inconsistencies.append("\(id) history ends elsewhere than its status")
            }
            if b.status == .completed && (b.finalFare == nil || b.pickedUpAt == nil) {
                report.inconsistencies.append("\(id) completed without a fare or pickup time")
            }
            if b.status.isCancelled && b.cancellation == nil {
                report.inconsistencies.append("\(id) cancelled without a record")
            }
            if let accepted = b.acceptedAt, let picked = b.pickedUpAt {
                waits.append(Double(picked.milliseconds(since: accepted)) / 1000)
            }
        }
        let open = coordinator.openTripCounts.dispatching + coordinator.openTripCounts.following
        if open > 0 { report.inconsistencies.append("\(open) trips still followed by the coordinator") }
        report.meanPickupWaitSeconds = waits.isEmpty ? 0 : waits.reduce(0, +) / Double(waits.count)
    }
}
