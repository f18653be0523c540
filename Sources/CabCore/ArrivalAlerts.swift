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
    /// `arriving_5_min`, `arriving_1_min`, `arriving_30_s` (the tier crossed), or `arrived`.
    public var kind: String
    /// Words for the rider with the real ETA: "Your driver arrives in 2 minutes".
    public var message: String
    /// The tier's threshold in seconds; nil for `arrived`.
    public var thresholdSeconds: Int?
    /// The ETA that crossed the tier, seconds; nil for `arrived`.
    public var etaSeconds: Int?

    /// The alert of the tier `threshold`, crossed by an ETA of `eta` seconds: the message states the ETA in
    /// whole minutes, rounded (at least 1), or "less than a minute" under 30 s.
    public static func arriving(withinSeconds threshold: Int, etaSeconds eta: Int) -> ArrivalAlert {
        let kind = threshold % 60 == 0 ? "arriving_\(threshold / 60)_min" : "arriving_\(threshold)_s"
        let minutes = max(1, (eta + 30) / 60)
        let words = eta < 30 ? "less than a minute" : minutes == 1 ? "1 minute" : "\(minutes) minutes"
        return ArrivalAlert(
            kind: kind, message: "Your driver arrives in \(words)", thresholdSeconds: threshold, etaSeconds: eta)
    }

    /// The driver is at the pickup.
    public static let arrived = ArrivalAlert(
        kind: "arrived", message: "Your driver has arrived", thresholdSeconds: nil, etaSeconds: nil)

    enum CodingKeys: String, CodingKey {
        case kind, message
        case thresholdSeconds = "threshold_s"
        case etaSeconds = "eta_s"
    }
}

/// Arrival alerts for one trip, sans-I/O: feed it each recomputed ETA and the arrival; it answers the alerts to
/// send. A tier fires only when the ETA crosses it from above (the previous ETA was over the threshold, the new
/// one is at or under it): a trip whose first ETA is already 2 minutes never hears "5 minutes". When one ETA
/// crosses several tiers, only the smallest fires (no "5 minutes" after "1 minute"). A tier that has fired
/// re-arms only when the ETA rises above it by more than the hysteresis band, so jitter never repeats one.
/// `arrived` fires once.
public struct ArrivalAlertTracker: Hashable, Sendable {
    /// The configuration.
    public let configuration: ArrivalAlertConfiguration
    /// The tiers currently spent (sent, skipped, or already under the ETA when it was first known).
    public private(set) var spentTiers: Set<Int> = []
    /// The last ETA fed in; nil before the first.
    public private(set) var lastETASeconds: Int?
    /// True once `arrived` was sent.
    public private(set) var arrivedSent = false

    /// A tracker with nothing sent.
    public init(configuration: ArrivalAlertConfiguration = ArrivalAlertConfiguration()) {
        self.configuration = configuration
    }

    /// The alerts due for a new ETA (at most one: the smallest tier crossed from above).
    public mutating func etaChanged(toSeconds eta: Int) -> [ArrivalAlert] {
        guard !arrivedSent else { return [] }
        defer { lastETASeconds = eta }
        for tier in spentTiers where eta > tier + configuration.hysteresisSeconds { spentTiers.remove(tier) }
        let under = configuration.tiersSeconds.filter { eta <= $0 }
        guard let previous = lastETASeconds else {
            spentTiers.formUnion(under)  // already under these when first known: never crossed from above
            return []
        }
        let crossed = under.filter { previous > $0 && !spentTiers.contains($0) }
        spentTiers.formUnion(under)
        guard let smallest = crossed.min() else { return [] }
        return [.arriving(withinSeconds: smallest, etaSeconds: eta)]
    }

    /// The driver reached the pickup: `arrived`, once.
    public mutating func driverArrived() -> [ArrivalAlert] {
        guard !arrivedSent else { return [] }
        arrivedSent = true
        spentTiers.formUnion(configuration.tiersSeconds)
        return [.arrived]
    }
}
