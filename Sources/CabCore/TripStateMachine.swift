/// The trip lifecycle as a sans-I/O state machine over one `Booking`: commands in, a new booking value,
/// a transition record to store and actions out. The owner (the trip service, `CabDispatch.DispatchCoordinator`)
/// stores the record with a compare-and-set on the old status and then performs exactly the actions, in order;
/// it never mutates a booking itself, nor derives side effects from the status.
///
/// Rules beyond the table (`TripTransitionTable`):
/// - a rider may act only on their own booking, a driver only on the trip assigned to them (or, for
///   `accept`, as themselves); dispatchers and the system act on any booking;
/// - `expire` and `no_show` are refused before their timeout has run (`.tooEarly`);
/// - `start` needs the booking's PIN (`.wrongCode`; the API turns a valid QR payload into it);
/// - repeating the cancellation that ended the booking (rider twice, driver twice) changes nothing and charges
///   no second fee; any other event on a finished booking is `.illegalTransition` naming its state.
public struct TripStateMachine: Sendable {
    /// The booking as it stands.
    public private(set) var booking: Booking
    /// The tariff for final fares and cancellation fees.
    public let tariff: Tariff
    /// The transition table (and its timeouts).
    public let table: TripTransitionTable

    /// Wraps `booking`.
    public init(booking: Booking, tariff: Tariff, table: TripTransitionTable = .standard) {
        precondition(
            booking.fareEstimate.currency == tariff.currency, "the tariff's currency differs from the booking's")
        self.booking = booking
        self.tariff = tariff
        self.table = table
    }

    /// The current state.
    public var state: TripState { booking.status }

    /// Longest free-text reason kept, in UTF-8 bytes.
    public static let maximumReasonBytes = 500

    /// Applies `command` by `actor` at `time`; on error nothing changes.
    public mutating func handle(_ command: TripCommand, by actor: Principal, at time: Instant) throws(CoreError)
        -> TripStep
    {
        let event = command.event
        if isHarmlessRepeat(command) {
            let roles = Set(table.transitions.filter { $0.event == event }.flatMap(\.roles))
            guard roles.contains(actor.role) else { throw .illegalTransition(event, in: state) }
            try checkOwnership(command, actor)
            return TripStep(record: nil, actions: [])
        }
        guard let transition = table.transition(from: state, on: event) else {
            throw .illegalTransition(event, in: state)
        }
        guard transition.roles.contains(actor.role) else {
            let who = transition.roles.filter { $0 != .system }.map { "a \($0.rawValue)" }.joined(separator: " or ")
            throw CoreError(
                .notPermitted,
                who.isEmpty
                    ? "SwiftCab does this by itself; nobody can \(event.verb) a trip by hand."
                    : "Only \(who) can \(event.verb) this trip.")
        }
        try checkOwnership(command, actor)
        if let timeout = transition.timeout, isTimed(command) {
            guard let due = dueTime(of: timeout), time >= due else {
                throw Self.tooEarly(event, due: dueTime(of: timeout), now: time, timeout: timeout)
            }
        }
        var next = booking
        var actions: [TripAction] = []
        var reason: String?
        next.status = transition.to
        next.statusChangedAt = time
        switch command {
        case .dispatch:
            actions = [.startDispatch, .notifyRider(.dispatching)]
        case .expire, .noDriverFound:
            actions = [.endDispatch(acceptedBy: nil), .notifyRider(transition.to), .endTrackingLinks]
        case .assign(let driver), .accept(let driver):
            next.driverID = driver
            next.acceptedAt = time
            actions = [
                .endDispatch(acceptedBy: driver), .followDriver(driver), .notifyRider(.accepted),
                .notifyDriver(driver, .accepted),
            ]
        case .depart, .arrive:
            if event == .arrive { next.arrivedAt = time }
            actions = [.notifyRider(transition.to)]
            if event == .arrive { actions.append(.announceArrival) }
        case .start(let code):
            // The booking id is no code: the driver has it. A QR payload is checked (and turned into the PIN) by the API.
            guard code == booking.pin else {
                throw CoreError(.wrongCode, "That code does not match this booking; ask the rider for their PIN.")
            }
            next.pickedUpAt = time
            actions = [.notifyRider(.inProgress)]
        case .complete(let meters, let seconds, let basis, let polyline):
            guard (0...Tariff.maximumDistanceMeters).contains(meters),
                (0...Tariff.maximumDurationSeconds).contains(seconds)
            else {
                throw CoreError(.invalidValue, "The trip's distance or duration is out of range.")
            }
            let fare = tariff.fare(distanceMeters: meters, durationSeconds: seconds).total
            next.finalFare = fare
            next.completedAt = time
            next.receipt = TripReceipt(
                distanceMeters: meters, durationSeconds: seconds, basis: basis, trailPolyline: polyline)
            actions = [.notifyRider(.completed), .chargeRider(fare), .endTrackingLinks]
        case .riderCancel(let text), .driverCancel(let text):
            reason = try Self.checkedReason(text)
            let fee =
                event == .riderCancel
                ? tariff.cancellationFee(
                    driverAcceptedAt: booking.acceptedAt, driverArrived: booking.arrivedAt != nil,
                    promisedPickupAt: booking.promisedPickupAt, cancelledAt: time)
                : .zero(tariff.currency)
            next.cancellation = Cancellation(by: actor, at: time, reason: reason ?? "", fee: fee)
            actions = state == .requested || state == .dispatching ? [.endDispatch(acceptedBy: nil)] : []
            actions.append(.notifyRider(transition.to))
            if !fee.isZero { actions.append(.chargeRider(fee)) }
            actions.append(.endTrackingLinks)
        case .noShow:
            reason = "no_show"
            next.cancellation = Cancellation(by: actor, at: time, reason: "no_show", fee: tariff.noShowFee)
            actions = [.notifyRider(.cancelledByDriver)]
            if !tariff.noShowFee.isZero { actions.append(.chargeRider(tariff.noShowFee)) }
            actions.append(.endTrackingLinks)
        case .redispatch(let why):
            // accepted, arriving and arrived always have a driver (accept and assign set it).
            guard let driver = booking.driverID else { preconditionFailure("a trip with a driver has no driver id") }
            reason = why.rawValue
            if next.pickupOverdueAt == nil,
                why == .pickupOverdue || (booking.promisedPickupAt.map { time > $0 } ?? false),
                booking.arrivedAt == nil
            {
                next.pickupOverdueAt = time
            }
            next.driverID = nil
            next.acceptedAt = nil
            next.arrivedAt = nil
            next.promisedPickupAt = nil
            next.redispatchCount += 1
            actions = [.notifyRider(.dispatching), .redispatch(from: driver, reason: why), .releaseDriver(driver)]
        }
        if let driver = booking.driverID, next.status.isTerminal {
            if actor.driverID != driver { actions.append(.notifyDriver(driver, next.status)) }
            actions.append(.releaseDriver(driver))
            actions.append(.stopFollowing)
        }
        let record = TripTransitionRecord(
            bookingID: booking.id, from: state, to: next.status, event: event, actor: actor, at: time, reason: reason)
        next.version = booking.version + 1
        booking = next
        return TripStep(record: record, actions: actions)
    }

    /// The timed transition whose time has come at `now` (the system should handle it), if any.
    public func dueTimeout(at now: Instant) -> TripCommand? {
        guard let next = nextDeadline, now >= next.at else { return nil }
        return next.command
    }

    /// The earliest timed transition out of the current state and when it is due; nil in untimed states.
    public var nextDeadline: (command: TripCommand, at: Instant)? {
        let timed = table.timedTransitions(from: state).compactMap { t -> (TripCommand, Instant)? in
            guard let timeout = t.timeout, let at = dueTime(of: timeout) else { return nil }
            switch t.event {
            case .expire: return (.expire, at)
            case .noDriverFound: return (.noDriverFound, at)
            case .noShow: return (.noShow, at)
            case .redispatch: return (.redispatch(reason: .pickupOverdue), at)
            default: return nil
            }
        }
        return timed.min { $0.1 < $1.1 }.map { (command: $0.0, at: $0.1) }
    }

    /// When `timeout` runs out for the booking as it stands: the promised pickup time plus the margin for
    /// `pickup_overdue` (nil without a promise), else entering the state plus the timeout.
    func dueTime(of timeout: TripTimeout) -> Instant? {
        if timeout.name == TripTransitionTable.pickupOverdueTimeout {
            return booking.promisedPickupAt?.adding(seconds: timeout.seconds)
        }
        return booking.statusChangedAt.adding(seconds: timeout.seconds)
    }

    /// True when `command` may only come once its transition's timeout has run: `expire` and `no_show`, and a
    /// re-dispatch for an overdue pickup (a driver's or dispatcher's re-dispatch may come at any time).
    /// `no_driver_found` also comes earlier, when dispatch runs out of batches.
    func isTimed(_ command: TripCommand) -> Bool {
        switch command {
        case .noDriverFound: false
        case .redispatch(let why): why == .pickupOverdue
        default: true
        }
    }

    static func tooEarly(_ event: TripEvent, due: Instant?, now: Instant, timeout: TripTimeout) -> CoreError {
        func minutes(_ seconds: Int) -> String {
            let n = max(1, (seconds + 59) / 60)
            return n == 1 ? "1 minute" : "\(n) minutes"
        }
        let left = due.map { minutes(Int(max(0, $0.milliseconds(since: now)) / 1000)) }
        switch event {
        case .noShow:
            return CoreError(
                .tooEarly,
                "The rider still has time to come (the wait is \(minutes(timeout.seconds))): you can report a no-show "
                    + "in \(left ?? minutes(timeout.seconds)).")
        case .redispatch:
            return CoreError(
                .tooEarly, "The pickup is not overdue yet; it is \(minutes(timeout.seconds)) after the promised time.")
        default:
            return CoreError(
                .tooEarly,
                "It is too early to \(event.verb) this trip; try again in \(left ?? minutes(timeout.seconds)).")
        }
    }

    func isHarmlessRepeat(_ command: TripCommand) -> Bool {
        switch command {
        case .riderCancel: state == .cancelledByRider
        case .driverCancel: state == .cancelledByDriver
        default: false
        }
    }

    func checkOwnership(_ command: TripCommand, _ actor: Principal) throws(CoreError) {
        switch actor.role {
        case .rider:
            guard actor.riderID == booking.riderID else { throw Self.notYours }
        case .driver:
            if case .accept(let driver) = command {
                guard actor.driverID == driver else { throw Self.notYours }
            } else {
                guard let assigned = booking.driverID, actor.driverID == assigned else { throw Self.notYours }
            }
        case .dispatcher, .system:
            break
        }
    }

    static let notYours = CoreError(.notPermitted, "This booking is not yours to change.")

    static func checkedReason(_ text: String) throws(CoreError) -> String {
        guard text.utf8.count <= maximumReasonBytes else {
            throw CoreError(.invalidValue, "The reason is longer than \(maximumReasonBytes) bytes; shorten it.")
        }
        return text
    }
}
