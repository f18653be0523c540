/// How dispatch offers a trip: batch size, offer timeout, search radii and how many batches before giving up.
/// One plain value with defaults (10 s offers, batches of 3, radius growing 2 → 4 → 8 km, at most 6 batches).
public struct DispatchConfiguration: Hashable, Sendable, Codable {
    /// How long one batch of offers stays open.
    public var offerSeconds: Int
    /// How many drivers one batch offers the trip to at once.
    public var batchSize: Int
    /// The straight-line search radius of batch `i` is `searchRadiiMeters[min(i, count - 1)]`.
    public var searchRadiiMeters: [Double]
    /// After this many batches without an accept, the trip is `no_driver_found`.
    public var maximumBatches: Int
    /// How many nearest drivers (by air) one search ranks by road ETA.
    public var candidatesPerSearch: Int

    /// Creates a configuration; every value must be positive and the radii must not shrink.
    public init(
        offerSeconds: Int = 10, batchSize: Int = 3, searchRadiiMeters: [Double] = [2_000, 4_000, 8_000],
        maximumBatches: Int = 6, candidatesPerSearch: Int = 50
    ) {
        precondition(
            offerSeconds > 0 && batchSize > 0 && maximumBatches > 0 && candidatesPerSearch > 0, "must be positive")
        precondition(!searchRadiiMeters.isEmpty && searchRadiiMeters.allSatisfy { $0 > 0 }, "need positive radii")
        precondition(zip(searchRadiiMeters, searchRadiiMeters.dropFirst()).allSatisfy { $0 <= $1 }, "radii must grow")
        self.offerSeconds = offerSeconds
        self.batchSize = batchSize
        self.searchRadiiMeters = searchRadiiMeters
        self.maximumBatches = maximumBatches
        self.candidatesPerSearch = candidatesPerSearch
    }

    /// The search radius of batch `batch` (0-based).
    public func radiusMeters(ofBatch batch: Int) -> Double {
        searchRadiiMeters[min(max(batch, 0), searchRadiiMeters.count - 1)]
    }

    enum CodingKeys: String, CodingKey {
        case offerSeconds = "offer_seconds"
        case batchSize = "batch_size"
        case searchRadiiMeters = "search_radii_m"
        case maximumBatches = "maximum_batches"
        case candidatesPerSearch = "candidates_per_search"
    }
}

/// A driver who could take a trip, with the road ETA to its pickup.
public struct DispatchCandidate: Hashable, Sendable {
    /// The driver.
    public var driver: DriverID
    /// Seconds by road from the driver's position to the pickup.
    public var etaSeconds: Int
    /// Straight-line metres to the pickup (a tie-breaker only).
    public var distanceMeters: Double

    /// Creates a candidate.
    public init(driver: DriverID, etaSeconds: Int, distanceMeters: Double) {
        self.driver = driver
        self.etaSeconds = etaSeconds
        self.distanceMeters = distanceMeters
    }
}

/// One open offer: the driver, the ETA they were shown, and when it lapses.
public struct DispatchOffer: Hashable, Sendable {
    /// The driver offered the trip.
    public var driver: DriverID
    /// The road ETA to the pickup shown with the offer.
    public var etaSeconds: Int
    /// When the offer lapses.
    public var expiresAt: Instant

    /// Creates an offer.
    public init(driver: DriverID, etaSeconds: Int, expiresAt: Instant) {
        self.driver = driver
        self.etaSeconds = etaSeconds
        self.expiresAt = expiresAt
    }
}

/// Why an open offer was taken back from a driver.
public enum OfferWithdrawal: String, Hashable, Sendable, Codable {
    /// Another driver accepted, or a dispatcher assigned someone.
    case taken
    /// The batch's time ran out.
    case expired
    /// The rider cancelled (or dispatch ended otherwise).
    case cancelled
}

/// What the owner of a `DispatchMachine` must do.
public enum DispatchAction: Hashable, Sendable {
    /// Find available drivers within `radiusMeters` of the pickup (never those in `excluding`), rank them by road
    /// ETA, and hand them to `candidatesFound(_:at:)`.
    case findCandidates(radiusMeters: Double, excluding: Set<DriverID>)
    /// Send these offers to their drivers.
    case offer([DispatchOffer])
    /// Take back open offers from these drivers.
    case withdraw([DriverID], OfferWithdrawal)
    /// Call `timerFired(at:)` at this instant.
    case scheduleTimer(Instant)
    /// The last batch went unanswered: move the trip to `no_driver_found`.
    case giveUp
}
