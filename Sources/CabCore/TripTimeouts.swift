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

    /// Creates timeouts; every value must be positive.
    public init(offerSeconds: Int = 10, requestExpirySeconds: Int = 60, dispatchSeconds: Int = 180, noShowSeconds: Int = 300) {
        precondition(
            [offerSeconds, requestExpirySeconds, dispatchSeconds, noShowSeconds].allSatisfy { $0 > 0 },
            "timeouts must be positive")
        self.offerSeconds = offerSeconds
        self.requestExpirySeconds = requestExpirySeconds
        self.dispatchSeconds = dispatchSeconds
        self.noShowSeconds = noShowSeconds
    }

    enum CodingKeys: String, CodingKey {
        case offerSeconds = "offer_seconds"
        case requestExpirySeconds = "request_expiry_seconds"
        case dispatchSeconds = "dispatch_seconds"
        case noShowSeconds = "no_show_seconds"
    }
}

/// A timeout that fires a transition: its name and length.
public struct TripTimeout: Hashable, Sendable, Codable {
    /// `request_expiry`, `dispatch` or `no_show`.
    public var name: String
    /// Seconds after entering the `from` state.
    public var seconds: Int
}
