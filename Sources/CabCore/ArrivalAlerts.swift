/// When to tell a rider the driver is close: ETA tiers (default 5 minutes and 1 minute) and a hysteresis band.
public struct ArrivalAlertConfiguration: Hashable, Sendable, Codable {
    /// The ETA thresholds in seconds, any order (default 300 and 60).
    public var tiersSeconds: [Int]
    /// A tier that has fired re-arms only when the ETA rises above its threshold by more than this (a real
    /// detour, not jitter); within the band it never repeats.
    public var hysteresisSeconds: Int

    /// Creates a configuration; thresholds and the band must be positive.
    public init(tiersSeconds: [Int] = [300, 60], hysteresisSeconds: Int = 120) {
        precondition(tiersSeconds.allSatisfy { $0 > 0 } && hysteresisSeconds > 0, "thresholds must be positive")
        self.tiersSeconds = Array(Set(tiersSeconds)).sorted(by: >)
        self.hysteresisSeconds = hysteresisSeconds
    }

    enum CodingKeys: String, CodingKey {
        case tiersSeconds = "tiers_s"
        case hysteresisSeconds = "hysteresis_s"
    }
}

/// One alert for the rider.
public struct ArrivalAlert: Hashable, Sendable, Codable {
    /// `arriving_5_min`, `arriving_1_min`, `arriving_30_s`, or `arrived`.
    public var kind: String
    /// Words for the rider: "Your driver is arriving in 5 minutes".
    public var message: String
    /// The tier's threshold in seconds; nil for `arrived`.
    public var thresholdSeconds: Int?

    /// The alert of a tier.
    public static func arriving(withinSeconds threshold: Int) -> ArrivalAlert {
        let minutes = threshold / 60
        let words: String
        let kind: String
        if threshold % 60 == 0 {
            words = minutes == 1 ? "1 minute" : "\(minutes) minutes"
            kind = "arriving_\(minutes)_min"
        } else {
            words = "\(threshold) seconds"
            kind = "arriving_\(threshold)_s"
        }
        return ArrivalAlert(kind: kind, message: "Your driver is arriving in \(words)", thresholdSeconds: threshold)
    }

    /// The driver is at the pickup.
    public static let arrived = ArrivalAlert(kind: "arrived", message: "Your driver has arrived", thresholdSeconds: nil)

    enum CodingKeys: String, CodingKey {
        case kind, message
        case thresholdSeconds = "threshold_s"
    }
}

/// Arrival alerts for one trip, sans-I/O: feed it each recomputed ETA and the arrival; it answers the alerts to
/// send. Each tier fires once when the ETA first drops to its threshold (a larger tier not yet sent is skipped
/// once a smaller one fires: no "5 minutes" after "1 minute"); jitter within the hysteresis band never repeats
/// one. `arrived` fires once.
public struct ArrivalAlertTracker: Hashable, Sendable {
    /// The configuration.
    public let configuration: ArrivalAlertConfiguration
    /// The tiers currently spent (sent or skipped).
    public private(set) var spentTiers: Set<Int> = []
    /// True once `arrived` was sent.
    public private(set) var arrivedSent = false

    /// A tracker with nothing sent.
    public init(configuration: ArrivalAlertConfiguration = ArrivalAlertConfiguration()) {
        self.configuration = configuration
    }

    /// The alerts due for a new ETA (at most one: the smallest tier crossed).
    public mutating func etaChanged(toSeconds eta: Int) -> [ArrivalAlert] {
        guard !arrivedSent else { return [] }
        for tier in spentTiers where eta > tier + configuration.hysteresisSeconds { spentTiers.remove(tier) }
        let crossed = configuration.tiersSeconds.filter { eta <= $0 }
        guard let smallest = crossed.min(), !spentTiers.contains(smallest) else {
            spentTiers.formUnion(crossed)
            return []
        }
        spentTiers.formUnion(crossed)
        return [.arriving(withinSeconds: smallest)]
    }

    /// The driver reached the pickup: `arrived`, once.
    public mutating func driverArrived() -> [ArrivalAlert] {
        guard !arrivedSent else { return [] }
        arrivedSent = true
        spentTiers.formUnion(configuration.tiersSeconds)
        return [.arrived]
    }
}
