import CabCore
import CabHTTP

extension CabApplication {
    /// `POST /v1/trips/{id}/start {"code"}`: the assigned driver starts the ride with what the rider shows, the
    /// 4-digit PIN or the QR payload (`RiderCodes`). Wrong codes are limited per trip (`StartAttemptLimiter`):
    /// after five, 429 with `Retry-After`, counted in `trip_start_lockouts_total` and logged for the dispatcher.
    func startTrip(_ request: HTTPRequest) throws -> HTTPResponse {
        let actor = try authenticate(request, roles: [.driver])
        let body = try request.decodeJSON(TripBodies.Start.self)
        let trip = try tripID(request)
        let dispatch = try requireDispatch()
        let now = services.now().millisecondsSinceEpoch
        if case .locked(let wait) = startAttempts.withLock({ $0.check(trip, now: now) }) {
            throw Self.startLocked(retryAfterSeconds: wait)
        }
        var code = body.code.trimmingCharacters(in: .whitespacesAndNewlines)
        if let qr = try riderCodes.verify(code) {
            // A QR payload is judged here; the state machine then sees the PIN (right) or nothing (wrong).
            let booking = qr.valid && qr.booking == trip ? try services.requireStore().booking(trip) : nil
            code = booking?.pin ?? ""
        }
        do {
            let started = try dispatch.handle(.start(code: code), trip, by: actor)
            startAttempts.withLock { $0.succeeded(trip) }
            return try bookingResponse(started, for: actor)
        } catch let error as CoreError where error.code == .wrongCode {
            let outcome = startAttempts.withLock { $0.wrongCode(trip, now: now) }
            startCounters.wrongCodes.increment()
            guard let seconds = outcome.lockedForSeconds else {
                throw ProblemType.wrongCode.error(
                    "\(error.message) \(outcome.remaining) more wrong codes lock this trip's start.")
            }
            startCounters.lockouts.increment()
            dispatch.log.warning(
                "trip start locked after wrong codes",
                metadata: [
                    "trip": "\(trip.rawValue)", "driver": "\(actor.driverID?.rawValue ?? "")", "locked_s": "\(seconds)",
                ])
            throw Self.startLocked(retryAfterSeconds: seconds)
        }
    }

    static func startLocked(retryAfterSeconds wait: Int) -> HTTPError {
        ProblemType.tooManyWrongCodes.error(
            "This trip's start is locked after too many wrong codes; retry after \(wait) s with the "
                + "code the rider shows (PIN or QR). The dispatcher has been told.",
            headers: ["Retry-After": String(wait)])
    }
}

/// The counters of trip starts.
struct StartCounters: Sendable {
    let wrongCodes: Counter
    let lockouts: Counter

    init(_ metrics: MetricsRegistry) {
        wrongCodes = metrics.counter(
            "trip_start_wrong_codes_total", help: "Trip starts refused for a wrong PIN or QR code.")
        lockouts = metrics.counter(
            "trip_start_lockouts_total", help: "Trips whose start was locked after too many wrong codes.")
    }
}
