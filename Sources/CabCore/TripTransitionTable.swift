/// The trip state machine as data: every allowed (state, event) pair, where it leads, who may cause it and
/// which timeout fires it. `GET /v1/trip-states` serves it as JSON; `TripStateMachine` enforces it.
///
/// JSON shape: `{"states": [{"name", "terminal"}], "events": [...], "timeouts": {...TripTimeouts},
/// "transitions": [{"from", "event", "to", "roles": [...], "timeout": {"name", "seconds"}}]}`; `timeout` is
/// present only on the transitions a timeout fires.
public struct TripTransitionTable: Hashable, Sendable, Codable {
    /// One state, as listed in the JSON.
    public struct State: Hashable, Sendable, Codable {
        /// The state.
        public var name: TripState
        /// True when it has no exits.
        public var terminal: Bool
    }

    /// One allowed transition.
    public struct Transition: Hashable, Sendable, Codable {
        /// The state it leaves.
        public var from: TripState
        /// What causes it.
        public var event: TripEvent
        /// The state it enters.
        public var to: TripState
        /// The roles that may cause it.
        public var roles: [Role]
        /// The timeout after entering `from` that makes the system cause it, if any.
        public var timeout: TripTimeout?
    }

    /// Every state.
    public var states: [State]
    /// Every event.
    public var events: [TripEvent]
    /// The configured clocks.
    public var timeouts: TripTimeouts
    /// Every allowed transition, grouped by event.
    public var transitions: [Transition]

    /// The table with the given timeouts.
    public init(timeouts: TripTimeouts = TripTimeouts()) {
        self.timeouts = timeouts
        states = TripState.allCases.map { State(name: $0, terminal: $0.isTerminal) }
        events = TripEvent.allCases
        let expiry = TripTimeout(name: "request_expiry", seconds: timeouts.requestExpirySeconds)
        let dispatchDeadline = TripTimeout(name: "dispatch", seconds: timeouts.dispatchSeconds)
        let noShowWait = TripTimeout(name: "no_show", seconds: timeouts.noShowSeconds)
        let overdue = TripTimeout(name: Self.pickupOverdueTimeout, seconds: timeouts.pickupOverdueSeconds)
        var rows: [Transition] = []
        func add(
            _ from: [TripState], _ event: TripEvent, _ to: TripState, _ roles: [Role], _ timeout: TripTimeout? = nil
        ) {
            for state in from {
                rows.append(Transition(from: state, event: event, to: to, roles: roles, timeout: timeout))
            }
        }
        add([.requested], .dispatch, .dispatching, [.system])
        add([.requested], .expire, .expired, [.system], expiry)
        add([.requested, .dispatching], .assign, .accepted, [.dispatcher])
        add([.dispatching], .accept, .accepted, [.driver])
        add([.dispatching], .noDriverFound, .noDriverFound, [.system], dispatchDeadline)
        add([.accepted], .depart, .arriving, [.driver, .system])
        add([.accepted, .arriving], .arrive, .arrived, [.driver, .dispatcher])
        add([.arrived], .start, .inProgress, [.driver])
        add([.inProgress], .complete, .completed, [.driver, .dispatcher])
        add(
            [.requested, .dispatching, .accepted, .arriving, .arrived], .riderCancel, .cancelledByRider,
            [.rider, .dispatcher])
        add([.accepted, .arriving, .arrived, .inProgress], .driverCancel, .cancelledByDriver, [.dispatcher])
        add([.arrived], .noShow, .cancelledByDriver, [.driver, .system], noShowWait)
        add([.accepted, .arriving], .redispatch, .dispatching, [.driver, .dispatcher, .system], overdue)
        add([.arrived], .redispatch, .dispatching, [.driver, .dispatcher])
        transitions = rows
    }

    /// The timeout counted from the promised pickup time rather than from entering the state.
    public static let pickupOverdueTimeout = "pickup_overdue"

    /// The table with default timeouts.
    public static let standard = TripTransitionTable()

    /// The transition `event` causes from `state`, nil when it is not allowed.
    public func transition(from state: TripState, on event: TripEvent) -> Transition? {
        transitions.first { $0.from == state && $0.event == event }
    }

    /// The states from which `event` is allowed, in table order.
    public func states(accepting event: TripEvent) -> [TripState] {
        transitions.filter { $0.event == event }.map(\.from)
    }

    /// The timed transitions out of `state` (the system fires them when their time is up).
    public func timedTransitions(from state: TripState) -> [Transition] {
        transitions.filter { $0.from == state && $0.timeout != nil }
    }
}
