import CabClient
import CabGeo
import Foundation

/// The rider's whole trip as a state machine without I/O: events in, actions out (STYLE.md §4).
///
/// locating → location denied / pickup known → destination by tap or search → route and fare → booking →
/// looking for a driver → driver on the way (live position, ETA, alerts) → arrived → riding → receipt, with
/// cancel where the trip allows it. `RiderModel` performs the actions and feeds the results back.
public struct RiderFlow: Hashable, Sendable {
    /// Where the rider is in the trip.
    public enum Phase: Hashable, Sendable {
        /// Waiting for the first position.
        case locating
        /// No position: the rider taps the map to set the pickup.
        case locationDenied
        /// The pickup is known; the destination is chosen by a tap or a search.
        case choosingDestination
        /// The route and fare are being computed.
        case estimating
        /// Route and fare shown; Book Now.
        case quoted
        /// The booking is being sent.
        case booking
        /// Booked; dispatch is offering the trip to drivers.
        case lookingForDriver
        /// A driver accepted and is coming.
        case driverOnTheWay
        /// The driver waits at the pickup.
        case driverArrived
        /// On board.
        case riding
        /// Dropped off: the receipt.
        case finished
        /// The trip ended without a ride (cancelled, no driver, expired).
        case ended
    }

    /// Which end of the trip a tap or name is for.
    public enum End: Hashable, Sendable {
        case pickup, dropoff
    }

    /// A chosen point and what to call it.
    public struct Spot: Hashable, Sendable {
        /// Where.
        public var coordinate: Coordinate
        /// Its name; nil while it is being looked up.
        public var name: String?

        /// Creates a spot.
        public init(coordinate: Coordinate, name: String? = nil) {
            self.coordinate = coordinate
            self.name = name
        }
    }

    /// The driver's live position.
    public struct Car: Hashable, Sendable {
        /// Where.
        public var coordinate: Coordinate
        /// Heading in degrees, when known.
        public var heading: Double?
    }

    /// What the owner must do.
    public enum Action: Hashable, Sendable {
        /// Start the location service (`LocationSource.start`).
        case startLocation
        /// Stop it.
        case stopLocation
        /// Look up the name of the place at a point, then send `named`.
        case lookUpName(Coordinate, End)
        /// Look up the available cars near the pickup, then send `carsNearby` (none on servers without the call).
        case lookUpCars(near: Coordinate)
        /// Search places near a point, then send `searchAnswered` (or `searchFailed`) with `serial`.
        case search(query: String, near: Coordinate, serial: Int)
        /// Estimate route and fare, then send `estimated` (or `estimateFailed`) with `serial`.
        case estimate(pickup: Coordinate, dropoff: Coordinate, serial: Int)
        /// Book (creating the rider account first if there is none), then send `booked` or `bookingFailed`.
        case book(pickup: Spot, dropoff: Spot, idempotencyKey: String)
        /// Follow the booking's live stream, sending `streamEvent` for each event.
        case follow(bookingID: String)
        /// Stop following.
        case stopFollowing
        /// Cancel the booking, then send `cancelled` or `cancelFailed`.
        case cancel(bookingID: String)
        /// Read the booking, then send `bookingRead` (the receipt, or the truth after a refused cancel).
        case readBooking(bookingID: String)
        /// Rate the driver, then send `rated` or `ratingFailed`.
        case rate(bookingID: String, stars: Int)
    }

    /// The rider's inputs and the answers to actions.
    public enum Event: Hashable, Sendable {
        case started
        case location(LocationEvent)
        case mapTapped(Coordinate)
        case choosePickupOnMap
        case regionChanged(BoundingBox)
        case searchChanged(String)
        case searchAnswered([Place], serial: Int)
        case searchFailed(ClientError.Code, message: String, serial: Int)
        case resultChosen(Place)
        case named(Place?, End, Coordinate)
        case carsNearby([NearbyCar], near: Coordinate)
        case estimated(FareEstimate, serial: Int)
        case estimateFailed(message: String, serial: Int)
        case bookTapped(newKey: String)
        case booked(BookingSummary)
        case bookingFailed(message: String)
        case streamEvent(RiderStreamEvent)
        case streamInterrupted(message: String)
        case cancelTapped
        case cancelConfirmed
        case cancelDismissed
        case cancelled(BookingSummary)
        case cancelFailed(status: Int?, message: String)
        case bookingRead(BookingSummary)
        case rateTapped(stars: Int)
        case rated(stars: Int)
        case ratingFailed(message: String)
        case newTrip
        case resumed(BookingSummary)
    }

    // MARK: State (what the views show)

    /// Where the rider is in the trip.
    public private(set) var phase: Phase = .locating
    /// The pickup.
    public private(set) var pickup: Spot?
    /// The destination.
    public private(set) var dropoff: Spot?
    /// The next tap sets this end.
    public private(set) var tapSets: End = .pickup
    /// The visible map region (searches are near its centre).
    public private(set) var region: BoundingBox?
    /// The search text.
    public private(set) var searchQuery = ""
    /// The places found for `searchQuery`.
    public private(set) var searchResults: [Place] = []
    /// Said when a search finds nothing ("No places match …").
    public private(set) var searchMessage: String?
    /// Available cars near the pickup before booking (coarse positions, no identities; newer servers).
    public private(set) var nearbyCars: [NearbyCar] = []
    /// Route and fare.
    public private(set) var estimate: FareEstimate?
    /// The booking once made.
    public private(set) var booking: BookingSummary?
    /// The assigned driver.
    public private(set) var driver: DriverInfo?
    /// The driver's live position.
    public private(set) var car: Car?
    /// Seconds until the driver reaches the pickup.
    public private(set) var pickupETASeconds: Int?
    /// Seconds until the drop-off during the ride (newer servers).
    public private(set) var dropoffETASeconds: Int?
    /// The latest alert ("Your driver arrives in 1 minute").
    public private(set) var alert: String?
    /// A passing notice ("Booking cancelled, free of charge.").
    public private(set) var notice: String?
    /// What went wrong, in words; nil when nothing did.
    public private(set) var error: String?
    /// The action Try Again repeats, when the error has one.
    public private(set) var retryAction: Action?
    /// True while asking "Cancel anyway?" (a driver is already on the way).
    public private(set) var confirmingCancel = false
    /// The stars the rider gave, once the server took them.
    public private(set) var stars: Int?
    /// The key of the booking being made: kept across retries so the server books once.
    public private(set) var idempotencyKey: String?
    /// What the booking's QR code encodes (`<booking id>.<secret>`, from the booking's `qr_code`: a secret only
    /// the server can make), for the app to draw on the device; nil from an older server (the PIN works alone).
    public private(set) var pickupCode: String?

    private var searchSerial = 0
    private var estimateSerial = 0
    private var cancelRefused = false

    /// A flow at the start.
    public init() {}

    /// Whether Cancel is shown.
    public var canCancel: Bool { [.lookingForDriver, .driverOnTheWay, .driverArrived].contains(phase) }
    /// Whether Book Now is enabled.
    public var canBook: Bool { phase == .quoted && estimate != nil }
    /// The route to draw: the booking's once booked, else the estimate's.
    public var route: [Coordinate] {
        let line = booking?.route?.polyline ?? estimate?.polyline
        return line.flatMap { Polyline.decode($0) } ?? []
    }
    /// The status line for the trip.
    public var statusLine: String? { booking.map { TripWords.riderStatus($0.status) } }

    // MARK: Transitions

    /// Takes one event; returns what the owner must do, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .started:
            // Once only: the view's `.task` runs again when the view reappears, and a pickup or a booking
            // (resumed before the view appeared) must not fall back to "Finding where you are".
            guard !isBooked, pickup == nil, phase == .locating || phase == .locationDenied else { return [] }
            phase = .locating
            return [.startLocation]
        case .location(let location):
            return located(location)
        case .mapTapped(let point):
            return tapped(point)
        case .choosePickupOnMap:
            guard !isBooked else { return [] }
            tapSets = .pickup
            return []
        case .regionChanged(let box):
            region = box
            return []
        case .searchChanged(let text):
            return searchChanged(text)
        case .searchAnswered(let places, let serial):
            guard serial == searchSerial else { return [] }  // an older query's answer
            searchResults = places
            searchMessage = places.isEmpty ? "No places match “\(searchQuery)” near here. Try another name." : nil
            return []
        case .searchFailed(_, let message, let serial):
            guard serial == searchSerial else { return [] }
            searchResults = []
            searchMessage = message
            return []
        case .resultChosen(let place):
            guard !isBooked else { return [] }
            searchResults = []
            searchMessage = nil
            searchQuery = place.name
            guard pickup != nil else {
                error = "Set your pickup first: allow location access or tap the map."
                return []
            }
            dropoff = Spot(coordinate: place.position, name: place.name)
            return requestEstimate()
        case .named(let place, let end, let point):
            return named(place, end, point)
        case .carsNearby(let cars, let point):
            guard !isBooked, pickup?.coordinate == point else { return [] }  // booked, or the pickup moved
            nearbyCars = cars
            return []
        case .estimated(let answer, let serial):
            guard serial == estimateSerial, phase == .estimating else { return [] }
            estimate = answer
            phase = .quoted
            return []
        case .estimateFailed(let message, let serial):
            guard serial == estimateSerial, phase == .estimating else { return [] }
            phase = .choosingDestination
            fail(message, retry: nil)
            return []
        case .bookTapped(let newKey):
            guard phase == .quoted, let pickup, let dropoff else { return [] }
            let key = idempotencyKey ?? newKey
            idempotencyKey = key
            phase = .booking
            clearMessages()
            return [.book(pickup: pickup, dropoff: dropoff, idempotencyKey: key)]
        case .booked(let answer):
            guard phase == .booking else { return [] }
            booking = answer
            nearbyCars = []  // the rider's own driver is shown from now on
            idempotencyKey = nil
            phase = phase(for: answer.status)
            pickupCode = answer.qrCode
            if TripWords.terminalStatuses.contains(answer.status) { return [] }
            return [.follow(bookingID: answer.id)]
        case .bookingFailed(let message):
            guard phase == .booking, let pickup, let dropoff, let idempotencyKey else { return [] }
            phase = .quoted
            fail(message, retry: .book(pickup: pickup, dropoff: dropoff, idempotencyKey: idempotencyKey))
            return []
        case .streamEvent(let event):
            return streamed(event)
        case .streamInterrupted(let message):
            guard isBooked, !isOver else { return [] }
            notice = message
            return []
        case .cancelTapped:
            return cancelTapped()
        case .cancelConfirmed:
            guard confirmingCancel, canCancel, let booking else { return [] }
            confirmingCancel = false
            return [.cancel(bookingID: booking.id)]
        case .cancelDismissed:
            confirmingCancel = false
            return []
        case .cancelled(let answer):
            booking = answer
            confirmingCancel = false
            phase = .ended
            clearLive()
            error = nil
            if let fee = answer.cancellation?.fee, fee.amountMinor > 0 {
                notice = "Booking cancelled. Cancellation fee \(TripWords.money(fee))."
            } else {
                notice = "Booking cancelled, free of charge."
            }
            return [.stopFollowing]
        case .cancelFailed(let status, let message):
            guard let booking else { return [] }
            if status == 409 {
                cancelRefused = true  // the trip moved on: read it to say why in words
                return [.readBooking(bookingID: booking.id)]
            }
            fail(message, retry: .cancel(bookingID: booking.id))
            return []
        case .bookingRead(let answer):
            return bookingRead(answer)
        case .rateTapped(let stars):
            guard phase == .finished, let booking, (1...5).contains(stars) else { return [] }
            return [.rate(bookingID: booking.id, stars: stars)]
        case .rated(let kept):
            stars = kept
            notice = "Thank you for rating your driver."
            return []
        case .ratingFailed(let message):
            error = message
            return []
        case .resumed(let answer):
            // The app was closed during a trip: carry on with it instead of planning a new one.
            guard !isBooked, !TripWords.terminalStatuses.contains(answer.status) else { return [] }
            booking = answer
            pickup = Spot(coordinate: answer.pickup, name: answer.pickupName)
            dropoff = Spot(coordinate: answer.dropoff, name: answer.dropoffName)
            driver = answer.driver
            nearbyCars = []
            phase = phase(for: answer.status)
            clearMessages()
            pickupCode = answer.qrCode
            return [.stopLocation, .follow(bookingID: answer.id)]
        case .newTrip:
            guard isOver || !isBooked else { return [] }
            let keep = (pickup, region, tapSets)
            self = RiderFlow()
            (pickup, region) = (keep.0, keep.1)
            phase = pickup == nil ? .locationDenied : .choosingDestination
            tapSets = pickup == nil ? .pickup : .dropoff
            return []
        }
    }

    // MARK: Steps

    private var isBooked: Bool { booking != nil || phase == .booking }
    private var isOver: Bool { phase == .finished || phase == .ended }

    private mutating func located(_ location: LocationEvent) -> [Action] {
        guard phase == .locating || phase == .locationDenied, pickup == nil else { return [] }
        switch location {
        case .sample(let sample):
            clearMessages()
            pickup = Spot(coordinate: sample.coordinate, name: nil)
            tapSets = .dropoff
            phase = .choosingDestination
            return [.stopLocation, .lookUpName(sample.coordinate, .pickup), .lookUpCars(near: sample.coordinate)]
        case .denied:
            phase = .locationDenied
            tapSets = .pickup
            error =
                "Location access is off for SwiftCab. Tap the map to set your pickup, or allow location in Settings."
            return [.stopLocation]
        case .unavailable:
            phase = .locationDenied
            tapSets = .pickup
            error = "Your location could not be found. Tap the map to set your pickup."
            return [.stopLocation]
        }
    }

    private mutating func tapped(_ point: Coordinate) -> [Action] {
        guard !isBooked, phase != .booking else { return [] }
        clearMessages()
        if tapSets == .pickup || pickup == nil {
            pickup = Spot(coordinate: point, name: nil)
            tapSets = .dropoff
            let name: [Action] = [.lookUpName(point, .pickup), .lookUpCars(near: point)]
            if phase == .locating || phase == .locationDenied { phase = .choosingDestination }
            return name + (dropoff == nil ? [] : requestEstimate())
        }
        dropoff = Spot(coordinate: point, name: nil)
        return [.lookUpName(point, .dropoff)] + requestEstimate()
    }

    private mutating func named(_ place: Place?, _ end: End, _ point: Coordinate) -> [Action] {
        // A place found near the tap is a name; no place (off the map, an empty field) is "Point on the map".
        let name = place.map { [$0.name, $0.address].compactMap { $0 }.joined(separator: ", ") } ?? "Point on the map"
        switch end {
        case .pickup where pickup?.coordinate == point: pickup?.name = name
        case .dropoff where dropoff?.coordinate == point: dropoff?.name = name
        default: break  // the rider chose another point meanwhile
        }
        return []
    }

    private mutating func searchChanged(_ text: String) -> [Action] {
        searchQuery = text
        searchSerial += 1
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard query.count >= 2 else {
            searchResults = []
            searchMessage = nil
            return []
        }
        guard let near = region?.center ?? pickup?.coordinate else {
            searchMessage = "Move the map to where you want to go, then search."
            return []
        }
        return [.search(query: query, near: near, serial: searchSerial)]
    }

    private mutating func requestEstimate() -> [Action] {
        guard let pickup, let dropoff else { return [] }
        estimateSerial += 1
        estimate = nil
        idempotencyKey = nil  // a new route is a new booking
        phase = .estimating
        return [.estimate(pickup: pickup.coordinate, dropoff: dropoff.coordinate, serial: estimateSerial)]
    }

    private mutating func streamed(_ event: RiderStreamEvent) -> [Action] {
        guard let current = booking, !isOver else { return [] }
        switch event {
        case .status(let status, let info):
            booking?.status = status
            if let info { driver = info }
            return moved(to: status, booking: current)
        case .driver(let info):
            driver = info
        case .position(let coordinate, let heading):
            car = Car(coordinate: coordinate, heading: heading)
        case .pickupETA(let seconds):
            if phase == .driverOnTheWay { pickupETASeconds = seconds }
        case .dropoffETA(let seconds):
            if phase == .riding { dropoffETASeconds = seconds }
        case .alert(let kind, let message):
            guard phase == .driverOnTheWay || kind == "arrived" else { return [] }
            alert = message
        case .redispatch(let message):
            clearLive()
            phase = .lookingForDriver
            notice = message ?? "Your driver cancelled. SwiftCab is finding you another driver."
        }
        return []
    }

    private mutating func moved(to status: String, booking current: BookingSummary) -> [Action] {
        let next = phase(for: status)
        guard next != phase else { return [] }
        let previous = phase
        phase = next
        confirmingCancel = confirmingCancel && canCancel
        switch next {
        case .lookingForDriver:
            clearLive()  // a new search: the previous driver is not coming
            if previous == .driverOnTheWay || previous == .driverArrived {
                notice = "Your driver cancelled. SwiftCab is finding you another driver."
            }
        case .driverArrived:
            pickupETASeconds = nil
            alert = "Your driver has arrived. Meet them at the pickup."
        case .riding:
            pickupETASeconds = nil
            alert = nil
        case .finished:
            clearLive()
            return [.stopFollowing, .readBooking(bookingID: current.id)]
        case .ended:
            clearLive()
            notice = endedNotice(status)
            return [.stopFollowing]
        default:
            break
        }
        return []
    }

    private mutating func cancelTapped() -> [Action] {
        if phase == .riding {
            error =
                "Your ride has started, so it can no longer be cancelled. Ask your driver to stop if you need to get out."
            return []
        }
        guard canCancel, let booking else { return [] }
        if phase == .lookingForDriver { return [.cancel(bookingID: booking.id)] }
        confirmingCancel = true  // a driver is on the way: a fee may apply
        return []
    }

    private mutating func bookingRead(_ answer: BookingSummary) -> [Action] {
        guard booking?.id == answer.id else { return [] }
        booking = answer
        if cancelRefused {
            cancelRefused = false
            confirmingCancel = false
            switch answer.status {
            case "in_progress":
                error =
                    "Your ride has started, so it can no longer be cancelled. Ask your driver to stop if you need to get out."
            case "completed": error = "This trip is already over, so there is nothing to cancel."
            default:
                error = "This trip can no longer be cancelled: \(TripWords.riderStatus(answer.status).lowercased())."
            }
            let next = phase(for: answer.status)
            if next != phase {
                phase = next
                if next == .finished { return [.stopFollowing] }
            }
            return []
        }
        if phase(for: answer.status) == .finished { phase = .finished }
        return []
    }

    private func phase(for status: String) -> Phase {
        switch status {
        case "requested", "dispatching": .lookingForDriver
        case "accepted", "arriving": .driverOnTheWay
        case "arrived": .driverArrived
        case "in_progress": .riding
        case "completed": .finished
        default: .ended
        }
    }

    private func endedNotice(_ status: String) -> String {
        switch status {
        case "no_driver_found": "No driver is free right now. Try booking again in a few minutes."
        case "cancelled_by_driver": "Your driver cancelled the trip. You have not been charged."
        case "expired": "Your booking expired before a driver could take it. Book again."
        case "cancelled_by_rider": "Booking cancelled."
        default: TripWords.riderStatus(status)
        }
    }

    private mutating func clearLive() {
        driver = nil
        car = nil
        pickupETASeconds = nil
        dropoffETASeconds = nil
        alert = nil
    }

    private mutating func clearMessages() {
        error = nil
        retryAction = nil
        notice = nil
    }

    private mutating func fail(_ message: String, retry: Action?) {
        error = message
        retryAction = retry
    }

    /// Try Again: repeats the failed action, if any.
    public mutating func retry() -> [Action] {
        guard let action = retryAction else { return [] }
        retryAction = nil
        error = nil
        if case .book = action {
            guard phase == .quoted else { return [] }
            phase = .booking
        }
        return [action]
    }
}
