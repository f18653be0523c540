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
            dispatch.notifier.subscribe(driver: driver, stream)
            stream.comment("connected")
            if let offer = dispatch.openOffer(for: driver) { stream.send(event: "offer", data: TripNotifier.encode(offer)) }
            return stream.response()
        }
    }
}

extension DispatchCoordinator {
    /// The open offer `driver` holds, as its event, if any.
    package func openOffer(for driver: DriverID) -> TripEvents.Offer? {
        let t = now()
        return state.withLock { s -> TripEvents.Offer? in
            guard let trip = s.offerHeld[driver], let d = s.dispatching[trip], let o = d.machine.openOffers[driver],
                t < o.expiresAt
            else { return nil }
            let b = d.booking
            return TripEvents.Offer(
                tripID: trip, pickup: b.pickup, dropoff: b.dropoff, pickupName: b.pickupName, dropoffName: b.dropoffName,
                etaSeconds: o.etaSeconds, expiresAt: o.expiresAt)
        }
    }

    /// `BookingHooks` that connect the booking endpoints to this coordinator.
    public var bookingHooks: BookingHooks {
        BookingHooks(
            isOffered: { [weak self] trip, driver in self?.isOffered(trip, to: driver) ?? false },
            admit: { [weak self] booking in self?.admit(booking) ?? BookingAdmission(booking: booking) },
            bookingCreated: { [weak self] booking in self?.bookingSubmitted(booking) },
            bookingAdmitted: { [weak self] booking, step in self?.bookingSubmitted(booking, admitted: step) },
            bookingChanged: { [weak self] booking, step in self?.bookingChanged(booking, step: step) },
            serializingTrip: { [gates] trip, body in gates.withGate(trip, body) })
    }
}
