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
            var lastEventID: UInt64?
            if let text = request.header("Last-Event-ID") ?? request.query["last_event_id"], !text.isEmpty {
                guard let id = UInt64(text.filter { $0 != " " }) else {
                    throw ProblemType.invalidEventID.error("'Last-Event-ID' must be an event id from this stream.")
                }
                lastEventID = id
            }
            return tracking.openStream(boundingBox: box, lastEventID: lastEventID).response()
        }
    }
}
