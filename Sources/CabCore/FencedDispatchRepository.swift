/// A trip's durable deadline: what times out when it is due.
public enum TripDeadlineKind: String, Hashable, Sendable, CaseIterable {
    /// The open batch of offers times out (dispatch moves to the next batch).
    case offerTimeout = "offer_timeout"
    /// Dispatch has looked long enough (`no_driver_found`).
    case dispatchTimeout = "dispatch_timeout"
    /// The driver has not arrived by the promised pickup time (re-dispatch).
    case pickupOverdue = "pickup_overdue"
    /// The driver has waited at the pickup long enough for a no-show.
    case noShowWait = "no_show_wait"
}

/// A trip's next timed transition, as a transition writes it (`FencedDispatchRepository.transition`).
public struct NextDeadline: Hashable, Sendable {
    /// Which timeout.
    public var kind: TripDeadlineKind
    /// How long from the database's now.
    public var inMilliseconds: Int64

    /// A deadline `milliseconds` from now.
    public init(_ kind: TripDeadlineKind, inMilliseconds milliseconds: Int64) {
        self.kind = kind
        self.inMilliseconds = milliseconds
    }
}

/// One batch of offers for a booking, as its shard's owner writes it.
public struct OfferBatch: Hashable, Sendable {
    /// The booking offered.
    public var booking: BookingID
    /// The batch's number within the booking's dispatch (1, 2, ...).
    public var batch: Int
    /// The drivers offered the booking.
    public var drivers: [DriverID]
    /// How long the offers stay open, from the database's now; the booking's `offerTimeout` deadline is then.
    public var openMilliseconds: Int64

    /// A batch.
    public init(booking: BookingID, batch: Int, drivers: [DriverID], openMilliseconds: Int64) {
        precondition(batch >= 1 && openMilliseconds > 0, "a batch is numbered from 1 and stays open a while")
        self.booking = booking
        self.batch = batch
        self.drivers = drivers
        self.openMilliseconds = openMilliseconds
    }
}

/// A deadline found due by a sweep and claimed by one node for a while (`FencedDispatchRepository`).
public struct DueDeadline: Hashable, Sendable {
    /// The booking.
    public var booking: BookingID
    /// What is due.
    public var kind: TripDeadlineKind
    /// When it was due, on the database's clock.
    public var dueAt: Instant
    /// The fence it was written under.
    public var fence: ShardFence
    /// Its version: `fireDeadline` succeeds only while it is unchanged (not rescheduled, not fired elsewhere).
    public var generation: Int64
    /// How many sweeps claimed it, this one included (more than one: a claimer died or failed before firing).
    public var attempts: Int

    /// A due deadline.
    public init(
        booking: BookingID, kind: TripDeadlineKind, dueAt: Instant, fence: ShardFence, generation: Int64, attempts: Int
    ) {
        self.booking = booking
        self.kind = kind
        self.dueAt = dueAt
        self.fence = fence
        self.generation = generation
        self.attempts = attempts
    }
}

/// Dispatch's durable state written by a shard's owner, each write carrying the owner's `ShardFence` and refused by
/// the database itself (`CoreError` `.staleFence`) unless that fence is the shard's current one with an unexpired
/// lease; and a sweep of due deadlines any node may run, so timeouts fire even when no node owns the shard.
///
/// The fence's shard must be the booking's (`DispatchShard(of:)`): anything else is a programming error and traps.
public protocol FencedDispatchRepository: Sendable {
    /// Writes a batch of offers: the booking's earlier batches' open offers are closed (`expired`), each driver's
    /// own open offer that has run out is closed, the new offers are opened, and the booking's `offerTimeout`
    /// deadline is set to their expiry, in one transaction. Returns the drivers offered: a driver who holds
    /// another open offer is left out (a driver holds at most one open offer), and nobody is offered a booking
    /// that is no longer `dispatching` (accepted or cancelled on another node meanwhile).
    func writeOffers(_ batch: OfferBatch, under fence: ShardFence) throws -> [DriverID]
    /// A batch step: the batch's open offers of `booking` are closed (`expired`) and its `offerTimeout` deadline
    /// removed, so dispatch can search again. Returns how many offers were closed.
    @discardableResult
    func closeBatch(_ batch: Int, of booking: BookingID, under fence: ShardFence) throws -> Int
    /// Giving up: every open offer of `booking` is withdrawn and its deadlines removed.
    func giveUp(_ booking: BookingID, under fence: ShardFence) throws
    /// Marks that the arrival alert at `thresholdSeconds` was sent for `booking`; true only for the first mark,
    /// so one alert goes out even when an owner changes mid-trip.
    func markAlert(of booking: BookingID, thresholdSeconds: Int, under fence: ShardFence) throws -> Bool
    /// Sets (or moves) `booking`'s deadline of `kind` to `milliseconds` from the database's now.
    func scheduleDeadline(
        _ kind: TripDeadlineKind, of booking: BookingID, inMilliseconds milliseconds: Int64, under fence: ShardFence)
        throws
    /// Claims up to `limit` deadlines that are due and not claimed by another node's sweep (`FOR UPDATE SKIP
    /// LOCKED`), for `retryAfterMilliseconds`: one that is not fired by then is due again for any sweep. Any node
    /// may call it, owner or not; offer timeouts, which only a shard's owner fires, only of the shards in
    /// `offerTimeoutsOf` (the caller's own).
    func claimDueDeadlines(
        for node: ClusterNodeID, limit: Int, retryAfterMilliseconds: Int64, offerTimeoutsOf shards: [DispatchShard]
    ) throws -> [DueDeadline]
    /// Fires a claimed deadline by compare-and-set: removes it when it is still the one claimed (same generation).
    /// True for the one caller that fired it; false when it was rescheduled or fired meanwhile.
    func fireDeadline(_ deadline: DueDeadline) throws -> Bool
    /// Every offer made for `booking`, by batch and driver: what a new owner resumes from.
    func offers(of booking: BookingID) throws -> [StoredOffer]
    /// A trip's transition from any node (commands are not fenced), as one transaction: the compare-and-set of
    /// `StoreRepository.transition` (a lost race is `.transitionConflict`, and nothing is written), the offers
    /// following the status (leaving dispatch, the open ones close), and the trip's `next` deadline set, so a
    /// timeout is durable from the moment its state is, whichever node made it and whoever owns the shard (it is
    /// written under the shard's latest fence). Returns the drivers whose open offers it withdrew.
    @discardableResult
    func transition(_ updated: Booking, record: TripTransitionRecord, then next: NextDeadline?) throws -> [DriverID]
    /// A driver's accept from any node, as one transaction: `driver`'s offer of the booking must be open and
    /// unexpired on the database's clock (else `CoreError` `.offerNotOpen`), then as `transition(_:record:then:)`:
    /// the offer becomes `accepted` and the booking's other open offers `withdrawn` (their drivers returned).
    /// Not fenced: any node may take a driver's answer.
    @discardableResult
    func acceptOffer(_ updated: Booking, record: TripTransitionRecord, then next: NextDeadline?) throws -> [DriverID]
    /// A driver's decline from any node, as one transaction: `driver`'s open offer of `booking` becomes
    /// `declined` and the decline is stored (dispatch never offers them the trip again). False when the driver
    /// held no open offer of it.
    func declineOffer(of booking: BookingID, by driver: DriverID, at time: Instant) throws -> Bool
}

/// An offer as the database holds it (`FencedDispatchRepository.offers(of:)`).
public struct StoredOffer: Hashable, Sendable {
    /// Where an offer stands.
    public enum State: String, Hashable, Sendable {
        /// Waiting for the driver's answer until it expires.
        case open
        /// The driver took the trip.
        case accepted
        /// The driver said no.
        case declined
        /// Nobody answered in time, or its batch ended.
        case expired
        /// Dispatch ended otherwise (another driver, a cancel, giving up).
        case withdrawn
        /// The driver took it and later handed the trip back (a re-dispatch).
        case released
    }

    /// The booking.
    public var booking: BookingID
    /// The driver offered.
    public var driver: DriverID
    /// The batch it belongs to.
    public var batch: Int
    /// Where it stands.
    public var state: State
    /// When it expires, on the database's clock.
    public var expiresAt: Instant
    /// The fence it was written under.
    public var fence: ShardFence
    /// How long it stays open from when it was read, in milliseconds, measured by the database (0 once it
    /// lapsed): what a new owner on a node whose clock differs counts its timer from.
    public var remainingMilliseconds: Int64

    /// An offer.
    public init(
        booking: BookingID, driver: DriverID, batch: Int, state: State, expiresAt: Instant, fence: ShardFence,
        remainingMilliseconds: Int64 = 0
    ) {
        self.booking = booking
        self.driver = driver
        self.batch = batch
        self.state = state
        self.expiresAt = expiresAt
        self.fence = fence
        self.remainingMilliseconds = remainingMilliseconds
    }
}
