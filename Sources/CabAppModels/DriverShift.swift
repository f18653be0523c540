import CabClient
import CabGeo
import Foundation

/// The driver's shift as a state machine without I/O: sign in, online and offline, offers with a countdown,
/// accept or decline, arrive, start with the rider's PIN or QR code, complete. `DriverModel` performs the actions.
public struct DriverShift: Hashable, Sendable {
    /// Where the driver is in the shift.
    public enum Phase: Hashable, Sendable {
        /// No account on this device.
        case signedOut
        /// Creating the account or checking a token.
        case signingIn
        /// Signed in, not taking trips.
        case offline
        /// Telling the server.
        case goingOnline
        /// Online, no offer.
        case waiting
        /// An offer is shown with its countdown.
        case offered
        /// Accepting it.
        case accepting
        /// Driving to the pickup.
        case toPickup
        /// Telling the rider the driver is there (after sending the last position).
        case arriving
        /// Waiting for the rider; start with their code.
        case atPickup
        /// Checking the code.
        case starting
        /// The rider is on board.
        case riding
        /// Sending the last positions, then completing.
        case completing
        /// The trip is done: the fare.
        case tripDone
        /// Telling the server the driver stops.
        case goingOffline
    }

    /// What the owner must do.
    public enum Action: Hashable, Sendable {
        /// Create a driver account, then send `signedIn` or `signInFailed`.
        case createAccount(name: String, vehicle: String, plate: String)
        /// Check a token (`GET /v1/me`), then send `signedIn` or `signInFailed`.
        case checkToken(String)
        /// Tell the server online or offline, then send `statusChanged` or `statusFailed`.
        case setOnline(Bool)
        /// Start or stop the location service and the reporter.
        case startLocation, stopLocation
        /// Follow or stop following the driver's stream.
        case openStream, closeStream
        /// Accept or decline the offer of a trip, then send the answer.
        case accept(tripID: String)
        case decline(tripID: String)
        /// Send every queued fix, then tell the server the driver is at the pickup.
        case arrive(tripID: String)
        /// Start the ride with the rider's code.
        case start(tripID: String, code: String)
        /// Send every queued fix, then complete (the fare is the server's trail).
        case complete(tripID: String)
        /// Record the current position as a fix now, past the distance filter, and not before the server's start
        /// time: the fare's trail starts at the first fix after it.
        case markPosition(notBefore: Date?)
        /// Read an assigned trip, then send `assigned`.
        case readTrip(tripID: String)
        /// Show a system notification (the app is in the background).
        case notify(String)
    }

    /// The driver's inputs and the answers to actions.
    public enum Event: Hashable, Sendable {
        case signUpTapped(name: String, vehicle: String, plate: String)
        case signInTapped(token: String)
        case signedIn(AccountInfo)
        case signInFailed(message: String)
        case signOutTapped
        case goOnlineTapped, goOfflineTapped
        case statusChanged(online: Bool)
        case statusFailed(message: String)
        case location(LocationEvent)
        case streamEvent(DriverStreamEvent, now: Date)
        case streamInterrupted(message: String)
        case tick(now: Date)
        case enteredBackground(now: Date)
        case enteredForeground(now: Date)
        case acceptTapped(now: Date)
        case declineTapped
        case accepted(BookingSummary)
        case acceptFailed(status: Int?, message: String)
        case declined
        case assigned(BookingSummary)
        case arrivedTapped
        case arrived(BookingSummary)
        case startTapped(code: String)
        case started(BookingSummary)
        case completeTapped
        case completed(BookingSummary)
        case commandFailed(status: Int?, message: String)
        case doneTapped
        case resumed(BookingSummary)
        /// The QR scanner cannot run (no camera, access refused, a simulator).
        case scannerUnavailable
    }

    /// Where the driver is in the shift.
    public private(set) var phase: Phase = .signedOut
    /// The signed-in account.
    public private(set) var account: AccountInfo?
    /// The offer on screen.
    public private(set) var offer: TripOffer?
    /// When it goes to someone else.
    public private(set) var offerExpiresAt: Date?
    /// Whole seconds left on the offer (the countdown).
    public private(set) var offerSecondsLeft: Int?
    /// The trip in hand.
    public private(set) var trip: BookingSummary?
    /// The fare of the trip just completed.
    public private(set) var fare: MoneyAmount?
    /// The driver's latest position.
    public private(set) var position: Coordinate?
    /// True while the app is in the background.
    public private(set) var inBackground = false
    /// A passing notice ("The offer expired and went to another driver.").
    public private(set) var notice: String?
    /// What went wrong, in words.
    public private(set) var error: String?
    private var phaseBeforeCommand: Phase?

    /// A shift signed in as `account`, offline; or signed out.
    public init(account: AccountInfo? = nil) {
        self.account = account
        phase = account == nil ? .signedOut : .offline
    }

    /// Whether the driver is taking trips (online and not busy going offline).
    public var isOnline: Bool {
        ![.signedOut, .signingIn, .offline, .goingOnline].contains(phase)
    }

    /// The trip's booked route to draw, pickup to drop-off.
    public var route: [Coordinate] { trip?.route?.polyline.flatMap { Polyline.decode($0) } ?? [] }

    /// Whether a trip is in hand.
    public var hasTrip: Bool { [.toPickup, .arriving, .atPickup, .starting, .riding, .completing].contains(phase) }

    /// Takes one event; returns what the owner must do, in order.
    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .signUpTapped(let name, let vehicle, let plate):
            guard phase == .signedOut else { return [] }
            let fields = [name, vehicle, plate].map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.allSatisfy({ !$0.isEmpty }) else {
                error = "Fill in your name, your car and its number plate."
                return []
            }
            phase = .signingIn
            error = nil
            return [.createAccount(name: fields[0], vehicle: fields[1], plate: fields[2])]
        case .signInTapped(let token):
            guard phase == .signedOut else { return [] }
            let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else {
                error = "Paste the driver token your fleet gave you."
                return []
            }
            phase = .signingIn
            error = nil
            return [.checkToken(token)]
        case .signedIn(let info):
            guard phase == .signingIn else { return [] }
            guard info.role == "driver" else {
                phase = .signedOut
                error = "That token belongs to a \(info.role), not a driver."
                return []
            }
            account = info
            phase = .offline
            notice = "Signed in as \(info.name). Go online to receive trips."
            return []
        case .signInFailed(let message):
            guard phase == .signingIn else { return [] }
            phase = .signedOut
            error = message
            return []
        case .signOutTapped:
            guard phase == .offline else {
                error = isOnline ? "Go offline before signing out." : error
                return []
            }
            self = DriverShift()
            return []
        case .goOnlineTapped:
            guard phase == .offline else { return [] }
            phase = .goingOnline
            clearMessages()
            return [.setOnline(true)]
        case .goOfflineTapped:
            if hasTrip {
                error = "You have a trip in hand. Complete it, or cancel it from the trip screen, before going offline."
                return []
            }
            guard [.waiting, .offered, .tripDone].contains(phase) else { return [] }
            clearOffer()
            trip = nil
            phase = .goingOffline
            return [.setOnline(false)]
        case .statusChanged(let online):
            if online, phase == .goingOnline {
                phase = .waiting
                notice = "You are online. Trips near you will be offered here."
                return [.startLocation, .openStream]
            }
            if !online, phase == .goingOffline {
                phase = .offline
                notice = "You are offline."
                return [.stopLocation, .closeStream]
            }
            return []
        case .statusFailed(let message):
            if phase == .goingOnline { phase = .offline }
            if phase == .goingOffline { phase = .waiting }
            error = message
            return []
        case .location(let location):
            return located(location)
        case .streamEvent(let event, let now):
            return streamed(event, now: now)
        case .streamInterrupted(let message):
            if isOnline { notice = message }
            return []
        case .tick(let now):
            return tick(now)
        case .enteredBackground(let now):
            inBackground = true
            return tick(now)
        case .enteredForeground(let now):
            let wasOffered = phase == .offered
            let actions = tick(now)
            inBackground = false
            if wasOffered, phase != .offered {
                notice =
                    "A trip was offered while SwiftCab was in the background; it expired and went to another driver."
            }
            return actions + (isOnline ? [.openStream] : [])  // the system may have cut the stream
        case .acceptTapped(let now):
            guard phase == .offered, let offer else { return [] }
            if let expires = offerExpiresAt, now >= expires {
                clearOffer()
                phase = .waiting
                notice = "The offer expired and went to another driver."
                return []
            }
            phase = .accepting
            return [.accept(tripID: offer.tripID)]
        case .declineTapped:
            guard phase == .offered, let offer else { return [] }
            clearOffer()
            phase = .waiting
            return [.decline(tripID: offer.tripID)]
        case .declined:
            notice = "Offer declined."
            return []
        case .accepted(let booking), .assigned(let booking):
            guard phase == .accepting || phase == .waiting || phase == .offered else { return [] }
            clearOffer()
            trip = booking
            fare = nil
            phase = phase(for: booking.status) ?? .toPickup
            notice = "Trip accepted. Drive to the pickup\(booking.pickupName.map { " at \($0)" } ?? "")."
            return []
        case .acceptFailed(let status, let message):
            guard phase == .accepting else { return [] }
            clearOffer()
            phase = .waiting
            error =
                status == 409
                ? "This trip is no longer available: another driver took it or the rider cancelled." : message
            return []
        case .arrivedTapped:
            guard phase == .toPickup, let trip else { return [] }
            return command(.arriving, .arrive(tripID: trip.id))
        case .arrived(let booking):
            guard phase == .arriving else { return [] }
            trip = booking
            phase = .atPickup
            notice = "The rider knows you are here. Start the trip with their PIN or QR code."
            return []
        case .startTapped(let code):
            guard phase == .atPickup, let trip else { return [] }
            let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
            if code.isEmpty {
                error = "Enter the rider's 4-digit PIN or scan their QR code."
                return []
            }
            if code.allSatisfy(\.isNumber) {
                guard code.count == 4 else {
                    error = "A PIN has 4 digits; ask the rider again."
                    return []
                }
            } else if let words = Self.qrProblem(code, trip: trip.id) {
                error = words  // not sent: every wrong code counts towards the server's lock on this trip's start
                return []
            }
            return command(.starting, .start(tripID: trip.id, code: code))
        case .scannerUnavailable:
            guard phase == .atPickup else { return [] }
            error = "The camera cannot scan here (no camera access, or a simulator). Type the rider's 4-digit PIN."
            return []
        case .started(let booking):
            guard phase == .starting else { return [] }
            trip = booking
            phase = .riding
            notice = "Trip started. Drive to the drop-off\(booking.dropoffName.map { " at \($0)" } ?? "")."
            return [.markPosition(notBefore: booking.actualPickupAt.flatMap(RFC3339Time.date(from:)))]
        case .completeTapped:
            guard phase == .riding, let trip else { return [] }
            return command(.completing, .complete(tripID: trip.id))
        case .completed(let booking):
            guard phase == .completing else { return [] }
            trip = booking
            fare = booking.finalFare?.total ?? booking.receipt?.total
            phase = .tripDone
            notice = fare.map { "Trip completed. Fare \(TripWords.money($0))." } ?? "Trip completed."
            return []
        case .commandFailed(let status, let message):
            guard let back = phaseBeforeCommand, [.arriving, .starting, .completing].contains(phase) else { return [] }
            phase = back
            phaseBeforeCommand = nil
            if status == 422, back == .atPickup {
                error = "That code does not match this trip. Ask the rider for their PIN or scan their QR code again."
            } else {
                error = message
            }
            return []
        case .resumed(let booking):
            // The app was closed with a trip in hand: back to it, sharing the position again.
            guard phase == .offline, booking.driver.map({ $0.id == account?.id }) ?? true,
                let next = phase(for: booking.status)
            else { return [] }
            trip = booking
            phase = next
            notice = "Back to your trip\(booking.pickupName.map { " to \($0)" } ?? "")."
            return [.startLocation, .openStream]
        case .doneTapped:
            guard phase == .tripDone else { return [] }
            trip = nil
            fare = nil
            phase = .waiting
            notice = nil
            return []
        }
    }

    /// What is wrong with a scanned code for `trip`, in words; nil when it is this trip's QR payload, which the
    /// server writes as `<booking id>.<secret>` (the secret an HMAC only the server can make).
    static func qrProblem(_ code: String, trip: String) -> String? {
        guard let dot = code.lastIndex(of: "."), code.index(after: dot) < code.endIndex else {
            return "That is not a SwiftCab trip code. Ask the rider for their PIN, or scan the QR code in their app."
        }
        return code[..<dot] == trip
            ? nil : "This QR code is for another trip. Ask the rider to show the code of this booking."
    }

    private mutating func command(_ busy: Phase, _ action: Action) -> [Action] {
        phaseBeforeCommand = phase
        phase = busy
        clearMessages()
        return [action]
    }

    private mutating func located(_ location: LocationEvent) -> [Action] {
        switch location {
        case .sample(let sample):
            position = sample.coordinate
            if error?.hasPrefix("Location") == true { error = nil }
        case .denied:
            error = "Location access is off. SwiftCab cannot offer you trips without it: allow it in Settings (Always)."
        case .unavailable:
            error = "Location could not be found; trips are offered only when SwiftCab knows where you are."
        }
        return []
    }

    private mutating func streamed(_ event: DriverStreamEvent, now: Date) -> [Action] {
        switch event {
        case .offer(let incoming):
            guard phase == .waiting || (phase == .offered && offer?.tripID == incoming.tripID) else { return [] }
            let expires = RFC3339Time.date(from: incoming.expiresAt) ?? now.addingTimeInterval(10)
            guard now < expires else { return [] }
            offer = incoming
            offerExpiresAt = expires
            offerSecondsLeft = secondsLeft(until: expires, now: now)
            phase = .offered
            clearMessages()
            let place = incoming.pickupName ?? "a pickup near you"
            return inBackground ? [.notify("New trip offer: pickup at \(place). Open SwiftCab to accept.")] : []
        case .cancelled(let id, let by, let status, let reason):
            if offer?.tripID == id, phase == .offered || phase == .accepting {
                clearOffer()
                phase = .waiting
                notice =
                    reason == "taken"
                    ? "Another driver took that trip."
                    : reason == "expired" ? "The offer expired and went to another driver." : "The offer was withdrawn."
                return []
            }
            guard trip?.id == id, hasTrip || phase == .tripDone else { return [] }
            trip = nil
            phaseBeforeCommand = nil
            phase = .waiting
            notice = by == "rider" ? "The rider cancelled the trip." : "The trip was cancelled (\(words(status)))."
            return inBackground ? [.notify(notice ?? "The trip was cancelled.")] : []
        case .assigned(let id, _):
            guard trip?.id != id, !hasTrip else { return [] }
            return [.readTrip(tripID: id)]
        }
    }

    private mutating func tick(_ now: Date) -> [Action] {
        guard phase == .offered, let expires = offerExpiresAt else { return [] }
        let left = secondsLeft(until: expires, now: now)
        guard left > 0 else {
            clearOffer()
            phase = .waiting
            notice = "The offer expired and went to another driver."
            return []
        }
        offerSecondsLeft = left
        return []
    }

    private func secondsLeft(until expires: Date, now: Date) -> Int {
        max(0, Int(expires.timeIntervalSince(now).rounded(.up)))
    }

    private func phase(for status: String) -> Phase? {
        switch status {
        case "accepted", "arriving": .toPickup
        case "arrived": .atPickup
        case "in_progress": .riding
        default: nil
        }
    }

    private func words(_ status: String?) -> String {
        switch status {
        case "cancelled_by_driver": "by the driver or a dispatcher"
        case "cancelled_by_rider": "by the rider"
        default: "by a dispatcher"
        }
    }

    private mutating func clearOffer() {
        offer = nil
        offerExpiresAt = nil
        offerSecondsLeft = nil
    }

    private mutating func clearMessages() {
        error = nil
        notice = nil
    }
}

/// RFC 3339 times as the server writes them.
enum RFC3339Time {
    static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
