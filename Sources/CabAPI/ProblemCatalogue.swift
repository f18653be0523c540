import CabHTTP

/// The API's problems, beside the HTTP layer's own (`ProblemType.httpProblems`): every error a client can get has
/// one entry here, with a stable `code` (a problem document's `code` member) and `type` URI (`/problems/{code}`).
///
/// `ErrorTable` maps the domain's errors to these; handlers throw them directly (`.tripOver.error("…")`).
/// `ProblemCatalogue.all` is the one list: it writes the errors section of `/openapi.json` and of `docs/api.md`
/// (`ProblemCatalogueTests`), `GET /problems` serves it, and `CabClient.ServerProblem.Code` names the same codes.
extension ProblemType {
    // MARK: Input

    /// A query parameter is malformed or out of range.
    static let invalidParameter = ProblemType(
        "invalid_parameter", status: 400, title: "Invalid parameter",
        summary: "A query parameter is malformed or out of range; the detail names it and what it takes.")
    /// A required query parameter is missing.
    static let missingParameter = ProblemType(
        "missing_parameter", status: 400, title: "Missing parameter",
        summary: "A query parameter the operation needs is missing; the detail names it.")
    /// A coordinate is malformed or outside -90…90 / -180…180.
    static let invalidCoordinate = ProblemType(
        "invalid_coordinate", status: 400, title: "Invalid coordinate",
        summary: "A coordinate is malformed or out of range (latitude -90…90, longitude -180…180, finite).")
    /// A bounding box is malformed.
    static let invalidBoundingBox = ProblemType(
        "invalid_bbox", status: 400, title: "Invalid bbox",
        summary: "'bbox' must be minLon,minLat,maxLon,maxLat in decimal degrees with min ≤ max.")
    /// A map tile's numbers are out of range.
    static let invalidTile = ProblemType(
        "invalid_tile", status: 400, title: "Invalid tile",
        summary: "A map tile is {z}/{x}/{y}.geojson with z 0…22 and x and y whole numbers in 0…2^z-1.")
    /// A time is not RFC 3339.
    static let invalidTime = ProblemType(
        "invalid_time", status: 400, title: "Invalid time", summary: "A time parameter is not an RFC 3339 time.")
    /// A time range is empty or reversed.
    static let invalidTimeRange = ProblemType(
        "invalid_time_range", status: 400, title: "Invalid time range", summary: "'from' must be earlier than 'to'.")
    /// An OsmAnd timestamp is not a time.
    static let invalidTimestamp = ProblemType(
        "invalid_timestamp", status: 400, title: "Invalid timestamp",
        summary: "An OsmAnd 'timestamp' must be Unix seconds, Unix milliseconds or an ISO 8601 time.")
    /// A `Last-Event-ID` that no stream event had.
    static let invalidEventID = ProblemType(
        "invalid_event_id", status: 400, title: "Invalid event id",
        summary: "'Last-Event-ID' must be an event id from this stream; reconnect without it for a snapshot.")
    /// A driver status other than online or offline.
    static let invalidStatus = ProblemType(
        "invalid_status", status: 400, title: "Invalid status", summary: "'status' must be \"online\" or \"offline\".")
    /// The `Idempotency-Key` header is empty or too long.
    static let invalidIdempotencyKey = ProblemType(
        "invalid_idempotency_key", status: 400, title: "Invalid Idempotency-Key",
        summary: "The Idempotency-Key header must be 1 to 255 bytes; send a fresh random key per booking.")
    /// A value of the body or a tariff is invalid (empty text, invisible characters, a bad amount).
    static let invalidValue = ProblemType(
        "invalid_value", status: 400, title: "Invalid input",
        summary: "A value of the request is invalid (empty or too long text, an invisible character, a bad number); "
            + "the detail names it.")
    /// A tariff that cannot price trips.
    static let invalidTariff = ProblemType(
        "invalid_tariff", status: 400, title: "Invalid input", summary: "The tariff is incomplete or inconsistent.")
    /// A currency code that is not ISO 4217.
    static let unknownCurrency = ProblemType(
        "unknown_currency", status: 400, title: "Invalid input", summary: "The currency is not an ISO 4217 code.")
    /// A place search the index cannot run.
    static let invalidSearch = ProblemType(
        "invalid_search", status: 400, title: "Invalid search", summary: "The search text or its options are invalid.")
    /// A batch of positions with no fixes.
    static let noFixes = ProblemType(
        "no_fixes", status: 400, title: "No fixes", summary: "'fixes' is empty; send 1 to the documented maximum.")
    /// A batch of positions over the limit.
    static let tooManyFixes = ProblemType(
        "too_many_fixes", status: 413, title: "Too many fixes",
        summary: "A batch holds more fixes than allowed; split it.")
    /// A matrix with too many or no points.
    static let matrixSize = ProblemType(
        "matrix_size", status: 422, title: "Matrix size",
        summary: "A matrix takes 1 to the documented limit of sources and destinations.")
    /// A rating outside 1…5 or with too long a comment.
    static let invalidRating = ProblemType(
        "invalid_rating", status: 422, title: "Invalid rating",
        summary: "A rating is 1 to 5 stars with an optional short comment.")

    // MARK: Who you are

    /// No token, or a token that is unknown or revoked.
    static let unauthorized = ProblemType(
        "unauthorized", status: 401, title: "Unauthorized",
        summary: "The bearer token is missing, unknown or revoked; create an account to get one.")
    /// An OsmAnd device id that is unknown.
    static let unknownDevice = ProblemType(
        "unknown_device", status: 401, title: "Unknown device",
        summary: "The OsmAnd device id is not known; get one with POST /v1/driver/devices.")
    /// The caller's role may not do this.
    static let forbidden = ProblemType(
        "forbidden", status: 403, title: "Forbidden", summary: "Your role may not do this; the detail says who may.")
    /// The caller may not act on this trip (not its rider or driver).
    static let notPermitted = ProblemType(
        "not_permitted", status: 403, title: "Forbidden", summary: "You may not act on this trip; it is not yours.")

    // MARK: Bookings and trips

    /// The trip's state does not allow the event (the document's `current_state` names the state).
    static let illegalTransition = ProblemType(
        "illegal_transition", status: 409, title: "Not possible now",
        summary: "The trip's state does not allow this; `current_state` says which state it is in.")
    /// Another change of the trip won a race with this one.
    static let transitionConflict = ProblemType(
        "transition_conflict", status: 409, title: "Not possible now",
        summary: "The trip changed meanwhile and no longer allows this; re-read it.")
    /// The event is allowed later, not yet (a no-show before the wait is over).
    static let tooEarly = ProblemType(
        "too_early", status: 409, title: "Not possible now", summary: "This is allowed later; the detail says when.")
    /// A decline or accept without an open offer to the driver.
    static let offerNotOpen = ProblemType(
        "offer_not_open", status: 409, title: "No open offer", summary: "The trip is not offered to you (any more).")
    /// A driver with an open trip going offline.
    static let tripOpen = ProblemType(
        "trip_open", status: 409, title: "Trip still open",
        summary: "You still hold a trip; complete or cancel it before you go offline.")
    /// A driver who already holds another trip.
    static let driverBusy = ProblemType(
        "driver_busy", status: 409, title: "Driver busy", summary: "A driver takes one trip at a time.")
    /// "Arrived" far from the pickup.
    static let tooFarFromPickup = ProblemType(
        "too_far_from_pickup", status: 409, title: "Too far from the pickup",
        summary: "Mark the arrival near the pickup, when the rider can see the car.")
    /// "Arrived" without a recent position.
    static let noRecentPosition = ProblemType(
        "no_recent_position", status: 409, title: "No recent position",
        summary: "SwiftCab has no recent position of the driver; turn on location sharing and try again.")
    /// A second rating of one trip.
    static let alreadyRated = ProblemType(
        "already_rated", status: 409, title: "Already rated", summary: "This trip is already rated by you.")
    /// A rating or receipt of a trip that is not completed.
    static let notCompleted = ProblemType(
        "not_completed", status: 409, title: "Trip not completed", summary: "Only a completed trip has this.")
    /// A share link for a trip that is over.
    static let tripOver = ProblemType(
        "trip_over", status: 409, title: "Trip over", summary: "The trip is over; there is nothing to share.")
    /// A wrong PIN or QR code at the start.
    static let wrongCode = ProblemType(
        "wrong_code", status: 422, title: "Wrong code",
        summary: "The start code is not the rider's; ask the rider for it.")
    /// Too many wrong start codes: the start is locked for a while.
    static let tooManyWrongCodes = ProblemType(
        "too_many_wrong_codes", status: 429, title: "Too many wrong codes",
        summary: "The trip's start is locked after too many wrong codes; retry after `Retry-After` seconds.")
    /// An `Idempotency-Key` reused with another body.
    static let idempotencyConflict = ProblemType(
        "idempotency_conflict", status: 422, title: "Idempotency-Key reused",
        summary: "This key came with another body; send a fresh key for a new booking.")
    /// Pickup and drop-off at the same point.
    static let pickupEqualsDropoff = ProblemType(
        "pickup_equals_dropoff", status: 422, title: "Pickup equals dropoff",
        summary: "The pickup and the drop-off are the same place; choose a different destination.")
    /// A route too long to price.
    static let tripTooLong = ProblemType(
        "trip_too_long", status: 422, title: "Trip too long",
        summary: "The route is too long to price; choose a nearer destination.")
    /// A point with no road near it.
    static let noRoadNearby = ProblemType(
        "no_road_nearby", status: 422, title: "No road nearby", summary: "Pick a point on or near a road of the map.")
    /// Two points no car can drive between.
    static let noRoute = ProblemType(
        "no_route", status: 422, title: "No route", summary: "Pick points that a car can drive between.")
    /// A tracking link of a trip that has ended.
    static let linkEnded = ProblemType(
        "link_ended", status: 410, title: "Link ended",
        summary: "The trip has ended; the tracking link no longer works.")
    /// A stored row conflicts with the request.
    static let conflict = ProblemType(
        "conflict", status: 409, title: "Conflict",
        summary: "The request conflicts with stored data; re-read and try again.")

    // MARK: Limits

    /// Too many requests from one driver or address.
    static let tooManyRequests = ProblemType(
        "too_many_requests", status: 429, title: "Too many requests", summary: "Retry after `Retry-After` seconds.")

    // MARK: What the server has loaded

    /// The store cannot answer now (closed, failing, disk full).
    static let storeUnavailable = ProblemType(
        "store_unavailable", status: 503, title: "Store unavailable",
        summary: "The store could not complete the request; retry after `Retry-After` seconds.")
    /// No data directory with a store.
    static let noStore = ProblemType(
        "no_store", status: 503, title: "No store",
        summary: "The server runs without a store; start `cab serve` with a data directory (`--data DIR`).")
    /// No map loaded.
    static let noMap = ProblemType(
        "no_map", status: 503, title: "No map",
        summary: "No map is loaded; import one with `cab import MAP.osm.pbf --data DIR`.")
    /// No place index loaded.
    static let noPlaces = ProblemType(
        "no_places", status: 503, title: "No places",
        summary: "No place index is loaded; import a map with `cab import`.")
    /// No live tracking (no store).
    static let noTracking = ProblemType(
        "no_tracking", status: 503, title: "No tracking",
        summary: "Live tracking needs the store; start `cab serve` with `--data DIR`.")
    /// No dispatch (no map or no store).
    static let noDispatch = ProblemType(
        "no_dispatch", status: 503, title: "No dispatch",
        summary: "Dispatch needs a map and a store; import a map with `cab import`.")
}

/// The one list of every problem a client can get.
enum ProblemCatalogue {
    /// The HTTP layer's problems, then the API's, each code once.
    static let all: [ProblemType] =
        ProblemType.httpProblems + [
            .invalidParameter, .missingParameter, .invalidCoordinate, .invalidBoundingBox, .invalidTile, .invalidTime,
            .invalidTimeRange,
            .invalidTimestamp, .invalidEventID, .invalidStatus, .invalidIdempotencyKey, .invalidValue, .invalidTariff,
            .unknownCurrency, .invalidSearch, .noFixes, .tooManyFixes, .matrixSize, .invalidRating,
            .unauthorized, .unknownDevice, .forbidden, .notPermitted,
            .illegalTransition, .transitionConflict, .tooEarly, .offerNotOpen, .tripOpen, .driverBusy,
            .tooFarFromPickup,
            .noRecentPosition, .alreadyRated, .notCompleted, .tripOver, .wrongCode, .tooManyWrongCodes,
            .idempotencyConflict,
            .pickupEqualsDropoff, .tripTooLong, .noRoadNearby, .noRoute, .linkEnded, .conflict,
            .tooManyRequests,
            .storeUnavailable, .noStore, .noMap, .noPlaces, .noTracking, .noDispatch,
        ]

    /// Each entry by its code.
    static let byCode: [String: ProblemType] = Dictionary(
        all.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
}
