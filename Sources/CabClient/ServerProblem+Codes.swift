// Written by ProblemCatalogueTests from the server's problem catalogue (CabAPI/ProblemCatalogue.swift);
// `CAB_WRITE_DOCS=1 swift test --filter ProblemCatalogueTests` rewrites it.

extension ServerProblem.Code {
    /// 400 Bad Request: The request is not valid HTTP for this server.
    public static let badRequest: Self = "bad_request"
    /// 400 Malformed JSON: The body is empty, not JSON, or a field is missing, null or of the wrong type; the detail names it.
    public static let malformedJson: Self = "malformed_json"
    /// 400 Value out of range: A field of the body is outside the range the operation allows; the detail gives it.
    public static let valueOutOfRange: Self = "value_out_of_range"
    /// 404 Not Found: Nothing is at this path, or nothing you may see.
    public static let notFound: Self = "not_found"
    /// 405 Method Not Allowed: The path takes other methods; the `Allow` header lists them.
    public static let methodNotAllowed: Self = "method_not_allowed"
    /// 413 Content Too Large: The body is larger than the server reads.
    public static let contentTooLarge: Self = "content_too_large"
    /// 414 URI Too Long: The request target is longer than the server reads; send long inputs in a POST body.
    public static let uriTooLong: Self = "uri_too_long"
    /// 414 Too many query parameters: The query has more parameters than the server reads; send only those the operation documents.
    public static let tooManyQueryParameters: Self = "too_many_query_parameters"
    /// 431 Request Header Fields Too Large: The request's headers are larger than the server reads; send fewer or shorter headers.
    public static let requestHeaderFieldsTooLarge: Self = "request_header_fields_too_large"
    /// 500 Internal Server Error: The server failed to handle the request; quote the request id when reporting it.
    public static let internalServerError: Self = "internal_server_error"
    /// 503 Server busy: Every handler thread is busy and the queue is full; nothing was done: retry after `Retry-After` seconds.
    public static let serverBusy: Self = "server_busy"
    /// 503 Server stopping: The server is shutting down; retry (a write may or may not have been made: repeat it with the same Idempotency-Key).
    public static let serverStopping: Self = "server_stopping"
    /// 400 Invalid parameter: A query parameter is malformed or out of range; the detail names it and what it takes.
    public static let invalidParameter: Self = "invalid_parameter"
    /// 400 Missing parameter: A query parameter the operation needs is missing; the detail names it.
    public static let missingParameter: Self = "missing_parameter"
    /// 400 Invalid coordinate: A coordinate is malformed or out of range (latitude -90…90, longitude -180…180, finite).
    public static let invalidCoordinate: Self = "invalid_coordinate"
    /// 400 Invalid bbox: 'bbox' must be minLon,minLat,maxLon,maxLat in decimal degrees with min ≤ max.
    public static let invalidBbox: Self = "invalid_bbox"
    /// 400 Invalid tile: A map tile is {z}/{x}/{y}.geojson with z 0…22 and x and y whole numbers in 0…2^z-1.
    public static let invalidTile: Self = "invalid_tile"
    /// 400 Invalid time: A time parameter is not an RFC 3339 time.
    public static let invalidTime: Self = "invalid_time"
    /// 400 Invalid time range: 'from' must be earlier than 'to'.
    public static let invalidTimeRange: Self = "invalid_time_range"
    /// 400 Invalid timestamp: An OsmAnd 'timestamp' must be Unix seconds, Unix milliseconds or an ISO 8601 time.
    public static let invalidTimestamp: Self = "invalid_timestamp"
    /// 400 Invalid event id: 'Last-Event-ID' must be an event id from this stream; reconnect without it for a snapshot.
    public static let invalidEventId: Self = "invalid_event_id"
    /// 400 Invalid status: 'status' must be "online" or "offline".
    public static let invalidStatus: Self = "invalid_status"
    /// 400 Invalid Idempotency-Key: The Idempotency-Key header must be 1 to 255 bytes; send a fresh random key per booking.
    public static let invalidIdempotencyKey: Self = "invalid_idempotency_key"
    /// 400 Invalid input: A value of the request is invalid (empty or too long text, an invisible character, a bad number); the detail names it.
    public static let invalidValue: Self = "invalid_value"
    /// 400 Invalid input: The tariff is incomplete or inconsistent.
    public static let invalidTariff: Self = "invalid_tariff"
    /// 400 Invalid input: The currency is not an ISO 4217 code.
    public static let unknownCurrency: Self = "unknown_currency"
    /// 400 Invalid search: The search text or its options are invalid.
    public static let invalidSearch: Self = "invalid_search"
    /// 400 No fixes: 'fixes' is empty; send 1 to the documented maximum.
    public static let noFixes: Self = "no_fixes"
    /// 413 Too many fixes: A batch holds more fixes than allowed; split it.
    public static let tooManyFixes: Self = "too_many_fixes"
    /// 422 Matrix size: A matrix takes 1 to the documented limit of sources and destinations.
    public static let matrixSize: Self = "matrix_size"
    /// 422 Invalid rating: A rating is 1 to 5 stars with an optional short comment.
    public static let invalidRating: Self = "invalid_rating"
    /// 401 Unauthorized: The bearer token is missing, unknown or revoked; create an account to get one.
    public static let unauthorized: Self = "unauthorized"
    /// 401 Unknown device: The OsmAnd device id is not known; get one with POST /v1/driver/devices.
    public static let unknownDevice: Self = "unknown_device"
    /// 403 Forbidden: Your role may not do this; the detail says who may.
    public static let forbidden: Self = "forbidden"
    /// 403 Forbidden: You may not act on this trip; it is not yours.
    public static let notPermitted: Self = "not_permitted"
    /// 409 Not possible now: The trip's state does not allow this; `current_state` says which state it is in.
    public static let illegalTransition: Self = "illegal_transition"
    /// 409 Not possible now: The trip changed meanwhile and no longer allows this; re-read it.
    public static let transitionConflict: Self = "transition_conflict"
    /// 409 Not possible now: This is allowed later; the detail says when.
    public static let tooEarly: Self = "too_early"
    /// 409 No open offer: The trip is not offered to you (any more).
    public static let offerNotOpen: Self = "offer_not_open"
    /// 409 Trip still open: You still hold a trip; complete or cancel it before you go offline.
    public static let tripOpen: Self = "trip_open"
    /// 409 Driver busy: A driver takes one trip at a time.
    public static let driverBusy: Self = "driver_busy"
    /// 409 Too far from the pickup: Mark the arrival near the pickup, when the rider can see the car.
    public static let tooFarFromPickup: Self = "too_far_from_pickup"
    /// 409 No recent position: SwiftCab has no recent position of the driver; turn on location sharing and try again.
    public static let noRecentPosition: Self = "no_recent_position"
    /// 409 Already rated: This trip is already rated by you.
    public static let alreadyRated: Self = "already_rated"
    /// 409 Trip not completed: Only a completed trip has this.
    public static let notCompleted: Self = "not_completed"
    /// 409 Trip over: The trip is over; there is nothing to share.
    public static let tripOver: Self = "trip_over"
    /// 422 Wrong code: The start code is not the rider's; ask the rider for it.
    public static let wrongCode: Self = "wrong_code"
    /// 429 Too many wrong codes: The trip's start is locked after too many wrong codes; retry after `Retry-After` seconds.
    public static let tooManyWrongCodes: Self = "too_many_wrong_codes"
    /// 422 Idempotency-Key reused: This key came with another body; send a fresh key for a new booking.
    public static let idempotencyConflict: Self = "idempotency_conflict"
    /// 422 Pickup equals dropoff: The pickup and the drop-off are the same place; choose a different destination.
    public static let pickupEqualsDropoff: Self = "pickup_equals_dropoff"
    /// 422 Trip too long: The route is too long to price; choose a nearer destination.
    public static let tripTooLong: Self = "trip_too_long"
    /// 422 No road nearby: Pick a point on or near a road of the map.
    public static let noRoadNearby: Self = "no_road_nearby"
    /// 422 No route: Pick points that a car can drive between.
    public static let noRoute: Self = "no_route"
    /// 410 Link ended: The trip has ended; the tracking link no longer works.
    public static let linkEnded: Self = "link_ended"
    /// 409 Conflict: The request conflicts with stored data; re-read and try again.
    public static let conflict: Self = "conflict"
    /// 429 Too many requests: Retry after `Retry-After` seconds.
    public static let tooManyRequests: Self = "too_many_requests"
    /// 503 Store unavailable: The store could not complete the request; retry after `Retry-After` seconds.
    public static let storeUnavailable: Self = "store_unavailable"
    /// 503 No store: The server runs without a store; start `cab serve` with a data directory (`--data DIR`).
    public static let noStore: Self = "no_store"
    /// 503 No map: No map is loaded; import one with `cab import MAP.osm.pbf --data DIR`.
    public static let noMap: Self = "no_map"
    /// 503 No places: No place index is loaded; import a map with `cab import`.
    public static let noPlaces: Self = "no_places"
    /// 503 No tracking: Live tracking needs the store; start `cab serve` with `--data DIR`.
    public static let noTracking: Self = "no_tracking"
    /// 503 No dispatch: Dispatch needs a map and a store; import a map with `cab import`.
    public static let noDispatch: Self = "no_dispatch"

    /// Every code this SDK knows, in the server's catalogue order.
    public static let known: [Self] = [
        .badRequest,
        .malformedJson,
        .valueOutOfRange,
        .notFound,
        .methodNotAllowed,
        .contentTooLarge,
        .uriTooLong,
        .tooManyQueryParameters,
        .requestHeaderFieldsTooLarge,
        .internalServerError,
        .serverBusy,
        .serverStopping,
        .invalidParameter,
        .missingParameter,
        .invalidCoordinate,
        .invalidBbox,
        .invalidTile,
        .invalidTime,
        .invalidTimeRange,
        .invalidTimestamp,
        .invalidEventId,
        .invalidStatus,
        .invalidIdempotencyKey,
        .invalidValue,
        .invalidTariff,
        .unknownCurrency,
        .invalidSearch,
        .noFixes,
        .tooManyFixes,
        .matrixSize,
        .invalidRating,
        .unauthorized,
        .unknownDevice,
        .forbidden,
        .notPermitted,
        .illegalTransition,
        .transitionConflict,
        .tooEarly,
        .offerNotOpen,
        .tripOpen,
        .driverBusy,
        .tooFarFromPickup,
        .noRecentPosition,
        .alreadyRated,
        .notCompleted,
        .tripOver,
        .wrongCode,
        .tooManyWrongCodes,
        .idempotencyConflict,
        .pickupEqualsDropoff,
        .tripTooLong,
        .noRoadNearby,
        .noRoute,
        .linkEnded,
        .conflict,
        .tooManyRequests,
        .storeUnavailable,
        .noStore,
        .noMap,
        .noPlaces,
        .noTracking,
        .noDispatch,
    ]
}
