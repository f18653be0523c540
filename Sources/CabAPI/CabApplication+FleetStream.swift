import CabCore
import CabGeo
import CabHTTP

extension CabApplication {
    /// `GET /v1/fleet/stream?bbox=minLon,minLat,maxLon,maxLat` (dispatcher, server-sent events).
    ///
    /// `EventSource` cannot send headers, so the token may come as `?access_token=` (the access log records the
    /// path without the query). Resumes after the `Last-Event-ID` header (or `last_event_id` parameter).
    func registerFleetStreamEndpoints(on router: inout Router) {
        router.get("/v1/fleet/stream") { [services] request in
            let (tracking, auth) = try services.requireTracking()
            _ = try auth.authenticator.principal(for: request, roles: [.dispatcher])
            var box: BoundingBox?
            if let text = request.query["bbox"] {
                guard let parsed = BoundingBox(parsing: text) else {
                    throw ProblemType.invalidBoundingBox.error(
                        "'bbox' must be minLon,minLat,maxLon,maxLat in decimal degrees with min ≤ max.")
                }
                box = parsed
            }
            return tracking.openStream(boundingBox: box, lastEventID: try Self.lastEventID(request)).response()
        }
    }

    /// The event id a stream resumes after: the `Last-Event-ID` header (sent by a browser reconnecting) or the
    /// `last_event_id` parameter; nil when absent or empty; 400 `invalid_event_id` when not a number.
    static func lastEventID(_ request: HTTPRequest) throws -> UInt64? {
        guard let text = request.header("Last-Event-ID") ?? request.query["last_event_id"], !text.isEmpty else {
            return nil
        }
        guard let id = UInt64(text.filter { $0 != " " }) else {
            throw ProblemType.invalidEventID.error("'Last-Event-ID' must be an event id from this stream.")
        }
        return id
    }
}
