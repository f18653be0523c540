import CabCore
import CabHTTP

extension CabApplication {
    /// `GET /v1/driver/stream` (SSE, `?access_token=` accepted): `offer`, `cancelled` and `assigned` events.
    /// An offer still open when the driver (re)connects is sent again first.
    func registerDriverStream(on router: inout Router) {
        router.get("/v1/driver/stream") { [self] request in
            let driver = try authenticatedDriver(request)
            let dispatch = try requireDispatch()
            let stream = EventStream(capacity: 64)
            TripNotifier.subscribe(stream, to: .driver(driver), on: dispatch.bus)
            stream.comment("connected")
            if let offer = dispatch.openOffer(for: driver) { TripNotifier.send(.offer(offer), to: stream) }
            return stream.response()
        }
    }
}
