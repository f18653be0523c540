/// The clocks of the trip lifecycle, in seconds; one plain configuration value with defaults.
public struct TripTimeouts: Hashable, Sendable, Codable {
    /// How long one batch of offers stays open (dispatch moves on to the next batch after it).
    public var offerSeconds: Int
    /// How long a booking may wait in `requested` before it `expire`s.
    public var requestExpirySeconds: Int
    /// How long dispatch may look for a driver before `no_driver_found`.
    public var dispatchSeconds: Int
    /// How long a driver waits at the pickup before a `no_show` is allowed.
    public var noShowSeconds: Int
    /// How long after the promised pickup time an accepted or arriving trip whose driver has not arrived goes
    /// back to dispatch (`redispatch`, reason `pickup_overdue`). Counted from `promised_pickup_at`, not from
    /// entering the state.
    public var pickupOverdueSeconds: Int

    /// Creates timeouts; every value must be positive.
    public init(
        offerSeconds: Int = 10, requestExpirySeconds: Int = 60, dispatchSeconds: Int = 180, noShowSeconds: Int = 300,
        pickupOverdueSeconds: Int = 600
    ) {
        precondition(
            [offerSeconds, requestExpirySeconds, dispatchSeconds, noShowSeconds, pickupOverdueSeconds].allSatisfy {
                $0 > 0
            },
            "timeouts must be positive")
        self.offerSeconds = offerSeconds
        self.requestExpirySeconds = requestExpirySeconds
        self.dispatchSeconds = dispatchSeconds
        self.noShowSeconds = noShowSeconds
        self.pickupOverdueSeconds = pickupOverdueSeconds
    }

    /// Decodes a timeouts object; `pickup_overdue_seconds` may be missing (tables served before it existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offerSeconds = try c.decode(Int.self, forKey: .offerSeconds)
        requestExpirySeconds = try c.decode(Int.self, forKey: .requestExpirySeconds)
        dispatchSeconds = try c.decode(Int.self, forKey: .dispatchSeconds)
        noShowSeconds = try c.decode(Int.self, forKey: .noShowSeconds)
        pickupOverdueSeconds = try c.decodeIfPresent(Int.self, forKey: .pickupOverdueSeconds) ?? 600
    }

    enum CodingKeys: String, CodingKey {
        case offerSeconds = "offer_seconds"
        case requestExpirySeconds = "request_expiry_seconds"
        case dispatchSeconds = "dispatch_seconds"
        case noShowSeconds = "no_show_seconds"
        case pickupOverdueSeconds = "pickup_overdue_seconds"
    }
}

/// A timeout that fires a transition: its name and length.
public struct TripTimeout: Hashable, Sendable, Codable {
    /// `request_expiry`, `dispatch`, `no_show` or `pickup_overdue` (the last counted from the promised pickup
    /// time, the others from entering the state).
    public var name: String
    /// Seconds after entering the `from` state.
    public var seconds: Int
}
