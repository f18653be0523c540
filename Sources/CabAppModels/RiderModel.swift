import CabClient
import CabGeo
import Foundation
import Observation

/// The rider app's model: a `RiderFlow` whose actions it performs against the server, observable by SwiftUI.
/// Views call its methods and read `flow`; every decision is in `RiderFlow`.
@MainActor
@Observable
public final class RiderModel {
    /// The trip as the views show it.
    public private(set) var flow = RiderFlow()
    /// The rider's token, once there is an account (the app keeps it in the Keychain).
    public private(set) var riderToken: String?

    @ObservationIgnored private var service: any RiderService
    @ObservationIgnored private let location: any LocationSource
    @ObservationIgnored private let makeKey: @Sendable () -> String
    @ObservationIgnored private let streamConfiguration: EventSource.Configuration
    @ObservationIgnored private let riderName: String
    @ObservationIgnored private var work: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextWork = 0
    @ObservationIgnored private var following: Task<Void, Never>?
    /// Called once a new account is made, to keep its token.
    @ObservationIgnored public var onAccountCreated: ((AccountCredentials) -> Void)?
    /// Called with the booking being followed, and with nil once its trip is over, so the app can resume it
    /// after being closed (`resume(bookingID:)`).
    @ObservationIgnored public var onOpenBookingChanged: ((String?) -> Void)?

    /// A model over `service`, signed in with `token` when the app has one, reading the position from `location`.
    public init(
        service: some RiderService, token: String? = nil, location: any LocationSource, riderName: String = "Rider",
        streamConfiguration: EventSource.Configuration = .init(),
        makeKey: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.service = token.map { service.authenticated($0) } ?? service
        self.riderToken = token
        self.location = location
        self.riderName = riderName
        self.streamConfiguration = streamConfiguration
        self.makeKey = makeKey
    }

    // MARK: What the views call

    /// Starts locating the rider.
    public func start() { send(.started) }
    /// A tap on the map.
    public func mapTapped(at point: Coordinate) { send(.mapTapped(point)) }
    /// The next tap sets the pickup.
    public func choosePickupOnMap() { send(.choosePickupOnMap) }
    /// The visible map region changed.
    public func regionChanged(to region: BoundingBox) { send(.regionChanged(region)) }
    /// The search text changed.
    public func search(_ text: String) { send(.searchChanged(text)) }
    /// A search result was chosen as the destination.
    public func choose(_ place: Place) { send(.resultChosen(place)) }
    /// Book Now.
    public func book() { send(.bookTapped(newKey: makeKey())) }
    /// Try Again after an error.
    public func retry() { perform(flow.retry()) }
    /// Cancel (asks first once a driver is on the way).
    public func cancel() { send(.cancelTapped) }
    /// "Cancel anyway".
    public func confirmCancel() { send(.cancelConfirmed) }
    /// "Keep my ride".
    public func keepBooking() { send(.cancelDismissed) }
    /// Rate the driver, 1 to 5 stars.
    public func rate(stars: Int) { send(.rateTapped(stars: stars)) }
    /// Start over after a finished or ended trip.
    public func newTrip() { send(.newTrip) }
    /// Carries on with a booking made before the app was closed; a trip that has ended meanwhile is forgotten.
    public func resume(bookingID: String) {
        run { model in
            do throws(ClientError) {
                let booking = try await model.service.booking(id: bookingID)
                if TripWords.terminalStatuses.contains(booking.status) { model.onOpenBookingChanged?(nil) }
                model.send(.resumed(booking))
            } catch {
                // Unknown (404) or unreachable: plan a new trip; the old one is said to be gone only if it is.
                if error.problem?.status == 404 { model.onOpenBookingChanged?(nil) }
            }
        }
    }

    /// Waits until every request started so far (and those they started) has answered; the live stream is not
    /// waited for.
    public func settle() async {
        while let (key, task) = work.first {
            await task.value
            work[key] = nil
        }
    }

    /// Stops the stream and location (the app is closing).
    public func stop() {
        following?.cancel()
        following = nil
        location.stop()
    }

    // MARK: Performing actions

    private func send(_ event: RiderFlow.Event) { perform(flow.handle(event)) }

    private func perform(_ actions: [RiderFlow.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: RiderFlow.Action) {
        switch action {
        case .startLocation:
            location.start { [weak self] event in self?.send(.location(event)) }
        case .stopLocation:
            location.stop()
        case .lookUpName(let point, let end):
            run { model in
                let place = try? await model.service.place(at: point)  // no name is not an error: "Point on the map"
                model.send(.named(place ?? nil, end, point))
            }
        case .lookUpCars(let point):
            run { model in
                do throws(ClientError) {
                    model.send(.carsNearby(try await model.service.nearbyCars(around: point), near: point))
                } catch {
                    // Cars on the map are a hint, not a step: servers before `GET /v1/cars/nearby` answer 404, and
                    // any other failure shows no cars; booking reports its own errors.
                    model.send(.carsNearby([], near: point))
                }
            }
        case .search(let query, let near, let serial):
            run { model in
                do throws(ClientError) {
                    let places = try await model.service.places(matching: query, near: near, limit: 6)
                    model.send(.searchAnswered(places, serial: serial))
                } catch {
                    model.send(
                        .searchFailed(
                            error.code, message: TripWords.message(for: error, doing: "search"), serial: serial))
                }
            }
        case .estimate(let pickup, let dropoff, let serial):
            run { model in
                do throws(ClientError) {
                    let answer = try await model.service.estimate(from: pickup, to: dropoff)
                    model.send(.estimated(answer, serial: serial))
                } catch {
                    model.send(
                        .estimateFailed(message: TripWords.message(for: error, doing: "find a route"), serial: serial))
                }
            }
        case .book(let pickup, let dropoff, let key):
            run { model in
                do throws(ClientError) {
                    try await model.ensureAccount()
                    let booking = try await model.service.book(
                        from: pickup.coordinate, to: dropoff.coordinate, pickupName: pickup.name,
                        dropoffName: dropoff.name, idempotencyKey: key)
                    model.send(.booked(booking))
                } catch {
                    model.send(.bookingFailed(message: TripWords.message(for: error, doing: "book the ride")))
                }
            }
        case .follow(let id):
            follow(id)
            onOpenBookingChanged?(id)
        case .stopFollowing:
            following?.cancel()
            following = nil
            onOpenBookingChanged?(nil)
        case .cancel(let id):
            run { model in
                do throws(ClientError) {
                    model.send(
                        .cancelled(try await model.service.cancelBooking(id: id, reason: "Cancelled in the app")))
                } catch {
                    model.send(
                        .cancelFailed(
                            status: error.problem?.status, message: TripWords.message(for: error, doing: "cancel")))
                }
            }
        case .readBooking(let id):
            run { model in
                do throws(ClientError) {
                    model.send(.bookingRead(try await model.service.booking(id: id)))
                } catch {
                    model.send(.streamInterrupted(message: TripWords.message(for: error, doing: "read your trip")))
                }
            }
        case .rate(let id, let stars):
            run { model in
                do throws(ClientError) {
                    model.send(.rated(stars: try await model.service.rate(booking: id, stars: stars)))
                } catch {
                    let words =
                        error.problem?.status == 404 || error.problem?.status == 405
                        ? "This server does not take ratings yet."
                        : TripWords.message(for: error, doing: "send your rating")
                    model.send(.ratingFailed(message: words))
                }
            }
        }
    }

    private func ensureAccount() async throws(ClientError) {
        guard riderToken == nil else { return }
        let account = try await service.createRider(name: riderName)
        riderToken = account.token
        service = service.authenticated(account.token)
        onAccountCreated?(account)
    }

    private func follow(_ id: String) {
        following?.cancel()
        let request = service.request("/v1/bookings/\(id)/stream", query: [:])
        let configuration = streamConfiguration
        following = Task { [weak self] in
            for await delivery in EventSource.deliveries(of: request, configuration: configuration) {
                guard let self else { return }
                switch delivery {
                case .event(let event):
                    if let decoded = RiderStreamEvent(event) { send(.streamEvent(decoded)) }
                case .interrupted(_, let message, _):
                    send(.streamInterrupted(message: message))
                case .refused(let problem):
                    send(.streamInterrupted(message: problem.detail ?? "Live updates are not available for this trip."))
                case .opened:
                    break
                }
            }
        }
    }

    /// Runs `body` as tracked work (see `settle`).
    private func run(_ body: @escaping @MainActor (RiderModel) async -> Void) {
        let key = nextWork
        nextWork += 1
        work[key] = Task { [weak self] in
            guard let self else { return }
            await body(self)
            work[key] = nil
        }
    }
}
