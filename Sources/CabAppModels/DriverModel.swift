import CabClient
import CabGeo
import Foundation
import Observation

/// The driver app's model: a `DriverShift` whose actions it performs, a `LocationReporter` fed by the
/// location service, and the driver's live stream; observable by SwiftUI. Every decision is in `DriverShift`
/// and `ReporterStateMachine`.
@MainActor
@Observable
public final class DriverModel {
    /// The shift as the views show it.
    public private(set) var shift: DriverShift
    /// Positions waiting to be sent (shown as "3 positions waiting").
    public private(set) var queuedFixes = 0
    /// The unsent positions in words ("3 positions waiting to be sent"); nil when none wait.
    public var queuedLine: String? { TripWords.queuedPositions(queuedFixes) }
    /// The driver's token, once signed in (the app keeps it in the Keychain).
    public private(set) var token: String?
    /// What went wrong with location sharing, in words; nil when it works.
    public private(set) var sharingProblem: String?

    @ObservationIgnored private var client: CabAPIClient
    @ObservationIgnored private var reporter: LocationReporter?
    @ObservationIgnored private let location: any LocationSource
    @ObservationIgnored private let clock: any AppClock
    @ObservationIgnored private let reporterConfiguration: LocationReporterConfiguration
    @ObservationIgnored private let reporterStore: (any ReporterStore)?
    @ObservationIgnored private let makeTransport: @Sendable (CabAPIClient) -> any LocationTransport
    @ObservationIgnored private let streamConfiguration: EventSource.Configuration
    @ObservationIgnored private var chain: Task<Void, Never>?
    @ObservationIgnored private var work: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextWork = 0
    @ObservationIgnored private var following: Task<Void, Never>?
    @ObservationIgnored private var locating = false
    @ObservationIgnored private var lastSample: LocationSample?
    /// Shows a system notification (set by the app; called when an offer comes in the background).
    @ObservationIgnored public var onNotify: ((String) -> Void)?
    /// Called after signing in, to keep the token.
    @ObservationIgnored public var onSignedIn: ((String) -> Void)?
    /// Called with the trip in hand, and with nil once there is none, so the app can resume it after being
    /// closed (`resume(tripID:)`).
    @ObservationIgnored public var onTripChanged: ((String?) -> Void)?
    @ObservationIgnored private var reportedTrip: String?
    @ObservationIgnored private var pendingResume: String?

    /// A model for the server `client` talks to; `transport` wraps the client for the reporter's uploads.
    public init(
        client: CabAPIClient, location: any LocationSource, clock: any AppClock = SystemClock(),
        reporterConfiguration: LocationReporterConfiguration = .init(), reporterStore: (any ReporterStore)? = nil,
        streamConfiguration: EventSource.Configuration = .init(),
        transport: @escaping @Sendable (CabAPIClient) -> any LocationTransport = { $0 }
    ) {
        self.client = client
        self.location = location
        self.clock = clock
        self.reporterConfiguration = reporterConfiguration
        self.reporterStore = reporterStore
        self.streamConfiguration = streamConfiguration
        self.makeTransport = transport
        self.shift = DriverShift()
    }

    // MARK: What the views call

    /// Creates a driver account.
    public func signUp(name: String, vehicle: String, plate: String) {
        send(.signUpTapped(name: name, vehicle: vehicle, plate: plate))
    }
    /// Signs in with a token (kept from before, or given by the fleet), then carries on with `tripID` when the
    /// app was closed with that trip in hand (an ended trip is forgotten).
    public func signIn(token: String, resumingTrip tripID: String? = nil) {
        pendingResume = tripID
        send(.signInTapped(token: token))
    }
    /// Signs out (offline only).
    public func signOut() {
        send(.signOutTapped)
        if shift.phase == .signedOut { token = nil }
    }
    /// Go online.
    public func goOnline() { send(.goOnlineTapped) }

    /// Go offline (refused with a trip in hand).
    public func goOffline() { send(.goOfflineTapped) }
    /// Accept the offer.
    public func accept() { send(.acceptTapped(now: clock.now())) }
    /// Decline the offer.
    public func decline() { send(.declineTapped) }
    /// "I have arrived".
    public func arrived() { send(.arrivedTapped) }
    /// Start with the PIN typed or the QR payload scanned.
    public func start(code: String) { send(.startTapped(code: code)) }
    /// The QR scanner cannot run on this phone now (the view checked the camera).
    public func scannerUnavailable() { send(.scannerUnavailable) }
    /// Complete at the drop-off.
    public func complete() { send(.completeTapped) }
    /// Back to waiting after the fare.
    public func done() { send(.doneTapped) }
    /// Once a second from the app's timer: the offer countdown and the reporter's due uploads.
    public func tick() {
        send(.tick(now: clock.now()))
        if let reporter { report { () async throws(ClientError) in try await reporter.poll() } }
    }
    /// The app went to the background.
    public func enteredBackground() { send(.enteredBackground(now: clock.now())) }
    /// The app came back.
    public func enteredForeground() { send(.enteredForeground(now: clock.now())) }
    /// The platform reports the network is back.
    public func networkBecameAvailable() {
        if let reporter { report { () async throws(ClientError) in try await reporter.networkBecameAvailable() } }
    }

    /// The reporter's saved state (for the views and tests).
    public func reporterSnapshot() async -> ReporterSnapshot? { await reporter?.snapshot }

    /// Waits until every request and report started so far has finished; the live stream is not waited for.
    public func settle() async {
        while true {
            if let (key, task) = work.first {
                await task.value
                work[key] = nil
            } else if let current = chain {
                await current.value
                if chain == current { chain = nil }
            } else {
                return
            }
        }
    }

    /// Stops the stream and location (the app is closing).
    public func stop() {
        following?.cancel()
        following = nil
        location.stop()
    }

    // MARK: Performing actions

    private func send(_ event: DriverShift.Event) {
        let actions = shift.handle(event)
        let inHand = shift.hasTrip ? shift.trip?.id : nil
        if inHand != reportedTrip {
            reportedTrip = inHand
            onTripChanged?(inHand)
        }
        for action in actions { perform(action) }
    }

    private func perform(_ action: DriverShift.Action) {
        switch action {
        case .createAccount(let name, let vehicle, let plate):
            run { model in
                do throws(ClientError) {
                    let account = try await model.client.createDriver(name: name, vehicle: vehicle, plate: plate)
                    model.signedIn(token: account.token)
                    model.send(.signedIn(try await model.client.me()))
                } catch {
                    model.send(.signInFailed(message: TripWords.message(for: error, doing: "create your account")))
                }
            }
        case .checkToken(let token):
            run { model in
                do throws(ClientError) {
                    let info = try await model.client.authenticated(token).me()
                    if info.role == "driver" { model.signedIn(token: token) }
                    model.send(.signedIn(info))
                    if let trip = model.pendingResume, info.role == "driver" {
                        model.pendingResume = nil
                        await model.resume(trip)
                    }
                } catch {
                    let words =
                        error.problem?.status == 401
                        ? "This server does not know that token. Check it and try again."
                        : TripWords.message(for: error, doing: "sign in")
                    model.send(.signInFailed(message: words))
                }
            }
        case .setOnline(let online):
            run { model in
                do throws(ClientError) {
                    try await model.client.setDriverOnline(online)
                    model.send(.statusChanged(online: online))
                } catch {
                    model.send(
                        .statusFailed(
                            message: TripWords.message(for: error, doing: online ? "go online" : "go offline")))
                }
            }
        case .startLocation:
            locating = true
            location.start { [weak self] event in self?.located(event) }
        case .stopLocation:
            locating = false
            location.stop()
        case .openStream:
            follow()
        case .closeStream:
            following?.cancel()
            following = nil
        case .accept(let id):
            run { model in
                do throws(ClientError) {
                    model.send(.accepted(try await model.client.acceptTrip(id)))
                } catch {
                    model.send(
                        .acceptFailed(
                            status: error.problem?.status, message: TripWords.message(for: error, doing: "accept")))
                }
            }
        case .decline(let id):
            run { model in
                do throws(ClientError) {
                    _ = try await model.client.declineTrip(id)
                    model.send(.declined)
                } catch {
                    // The offer is gone either way; a refused decline changes nothing for the driver.
                    model.send(.streamInterrupted(message: TripWords.message(for: error, doing: "decline")))
                }
            }
        case .arrive(let id):
            // Through the report chain: the positions recorded before the tap go first (the server checks
            // that the driver is near the pickup).
            command(doing: "tell the rider you are here") { (model: DriverModel) async throws(ClientError) in
                if let reporter = model.reporter { try await reporter.flush() }
                return .arrived(try await model.client.arrived(id))
            }
        case .start(let id, let code):
            command(doing: "start the trip") { (model: DriverModel) async throws(ClientError) in
                .started(try await model.client.startTrip(id, code: code))
            }
        case .complete(let id):
            command(doing: "complete the trip") { (model: DriverModel) async throws(ClientError) in
                guard let reporter = model.reporter else { return .completed(try await model.client.completeTrip(id)) }
                return .completed(try await model.client.completeTrip(id, flushing: reporter))
            }
        case .readTrip(let id):
            run { model in
                do throws(ClientError) {
                    model.send(.assigned(try await model.client.trip(id)))
                } catch {
                    model.send(.streamInterrupted(message: TripWords.message(for: error, doing: "read the trip")))
                }
            }
        case .markPosition(let notBefore):
            // The server counts the fare's distance from the first fix after the start: without this one the
            // road from the pickup to the next 20 m fix would go unpaid. Its time is after the server's start
            // even when this phone's clock is a little behind the server's.
            guard let reporter, let last = lastSample else { return }
            var mark = last
            mark.time = max(
                clock.now(), last.time.addingTimeInterval(0.001), notBefore?.addingTimeInterval(0.001) ?? .distantPast)
            let here = mark
            report { () async throws(ClientError) in try await reporter.record(here, forced: true) }
        case .notify(let text):
            onNotify?(text)
        }
    }

    private func resume(_ tripID: String) async {
        do throws(ClientError) {
            send(.resumed(try await client.trip(tripID)))
            if !shift.hasTrip { onTripChanged?(nil) }  // it ended while the app was closed
        } catch {
            if error.problem?.status == 404 { onTripChanged?(nil) }  // unknown here: nothing to resume
        }
    }

    private func signedIn(token: String) {
        self.token = token
        client = client.authenticated(token)
        do throws(ClientError) {
            reporter = try LocationReporter(
                configuration: reporterConfiguration, transport: makeTransport(client), store: reporterStore,
                now: { [clock] in clock.now() })
        } catch {
            sharingProblem = error.message
        }
        onSignedIn?(token)
    }

    private func located(_ event: LocationEvent) {
        send(.location(event))
        guard case .sample(let sample) = event, let reporter, locating else { return }
        lastSample = sample
        report { () async throws(ClientError) in try await reporter.record(sample) }
    }

    /// Runs reporter work in order on one chain, then refreshes `queuedFixes`.
    private func report(_ body: @escaping @Sendable () async throws(ClientError) -> Void) {
        let previous = chain
        chain = Task { [weak self] in
            await previous?.value
            do throws(ClientError) {
                try await body()
                self?.sharingProblem = nil
            } catch {
                self?.sharingProblem = error.message
            }
            await self?.refreshQueue()
        }
    }

    /// A trip command on the report chain (after the positions recorded before it), answered with an event.
    private func command(
        doing: String, _ body: @escaping @MainActor (DriverModel) async throws(ClientError) -> DriverShift.Event
    ) {
        let previous = chain
        chain = Task { [weak self] in
            await previous?.value
            guard let self else { return }
            do throws(ClientError) {
                send(try await body(self))
            } catch {
                send(
                    .commandFailed(status: error.problem?.status, message: TripWords.message(for: error, doing: doing)))
            }
            await refreshQueue()
        }
    }

    private func refreshQueue() async {
        queuedFixes = await reporter?.snapshot.queue.count ?? 0
    }

    private func follow() {
        following?.cancel()
        let request = client.request("/v1/driver/stream")
        let configuration = streamConfiguration
        following = Task { [weak self] in
            for await delivery in EventSource.deliveries(of: request, configuration: configuration) {
                guard let self else { return }
                switch delivery {
                case .event(let event):
                    if let decoded = DriverStreamEvent(event) { send(.streamEvent(decoded, now: clock.now())) }
                case .interrupted(_, let message, _):
                    send(.streamInterrupted(message: message))
                case .refused(let problem):
                    send(.streamInterrupted(message: problem.detail ?? "Offers cannot be received; sign in again."))
                case .opened:
                    break
                }
            }
        }
    }

    private func run(_ body: @escaping @MainActor (DriverModel) async -> Void) {
        let key = nextWork
        nextWork += 1
        work[key] = Task { [weak self] in
            guard let self else { return }
            await body(self)
            work[key] = nil
        }
    }
}
