import CabGeo
import CabLoopback
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `cab chaos`: the load of issue 18's chaos run. Simulated riders book trips on the nodes of one city and
/// simulated drivers answer the offers their streams bring, while whoever runs it kills, pauses and restarts
/// nodes, Redis and PostgreSQL (`scripts/chaos-run.sh`, `ClusterChaosTests`). Every account talks to a node of
/// its own and moves to the next one when that one does not answer, as an app behind a load balancer would.
///
/// Drivers accept, decline or ignore each offer (by the probabilities), on any node; a driver who won a trip
/// hands it back now and then (a re-dispatch), else the rider cancels it (so the driver is free again). Riders
/// book one trip at a time and wait for it to be accepted or to end (`no_driver_found` at the dispatch
/// deadline). The database's checker (`cab check-dispatch`) judges the run; this prints what the users saw.
package struct DispatchChaos: Sendable {
    /// What to run.
    package struct Configuration: Sendable {
        /// The nodes.
        package var baseURLs: [URL]
        /// Where drivers wait (each at one of these) and riders are picked up.
        package var spots: [Coordinate]
        /// Where riders go.
        package var destinations: [Coordinate]
        package var drivers = 20
        /// Bookings made in all.
        package var trips = 200
        /// Riders booking at once.
        package var riders = 10
        package var acceptProbability = 0.5
        package var declineProbability = 0.25
        /// After winning a trip, how often a driver hands it back instead of the rider cancelling it.
        package var handBackProbability = 0.2
        /// A rider gives up waiting (and cancels) after this long.
        package var patienceSeconds = 120.0
        /// A request waits this long for an answer before the account tries the next node.
        package var requestTimeoutSeconds = 3.0
        /// How late the dispatch deadline may fire before it counts as late (`trip.dispatch_seconds` is
        /// `dispatchSeconds`); nil: timeouts are not timed.
        package var dispatchSeconds: Double?
        /// Bookings made in the first this many seconds have their first offers reported apart (the steady
        /// figure, before whoever runs this starts the faults).
        package var calmSeconds = 0.0
        package var seed: UInt64 = 1

        /// A configuration for `baseURLs` with drivers waiting at `spots`.
        package init(baseURLs: [URL], spots: [Coordinate], destinations: [Coordinate]) {
            precondition(!baseURLs.isEmpty && !spots.isEmpty && !destinations.isEmpty, "nodes and places to use")
            self.baseURLs = baseURLs
            self.spots = spots
            self.destinations = destinations
        }
    }

    /// What the riders and drivers saw.
    package struct Summary: Sendable {
        package var bookings = 0
        package var bookingFailures = 0
        package var offers = 0
        package var accepted = 0
        /// Accepts answered 409 (another driver won, the offer lapsed or the trip was cancelled).
        package var acceptsRefused = 0
        package var declines = 0
        package var ignored = 0
        package var handBacks = 0
        package var riderCancels = 0
        package var noDriverFound = 0
        /// Trips whose rider stopped waiting.
        package var givenUp = 0
        /// Requests that found their node away and went to the next one.
        package var nodeSwitches = 0
        /// The same offer (trip and driver) delivered to a driver twice with a different expiry: a re-offer.
        package var repeatedOffers = 0
        /// Offers of a trip to a driver it was offered to before a hand-back: a new round may ask them again.
        package var reofferedAfterHandBack = 0
        /// The first repeated offers, described.
        package var repeatedExamples: [String] = []
        /// Milliseconds from the booking's answer to the first offer of the trip on any driver's stream.
        package var firstOfferMilliseconds: [Double] = []
        /// As `firstOfferMilliseconds`, for the bookings made in the calm first seconds only.
        package var calmFirstOfferMilliseconds: [Double] = []
        /// The calm first offers with when their bookings were answered, in seconds since the load began.
        package var calmFirstOffers: [(milliseconds: Double, bookedSeconds: Double)] = []
        /// For trips ended `no_driver_found`: seconds after the dispatch deadline that the rider saw it.
        package var timeoutLatenessSeconds: [Double] = []
        package var seconds = 0.0
    }

    package let configuration: Configuration
    /// One line of progress.
    package let progress: @Sendable (String) -> Void

    package init(configuration: Configuration, progress: @escaping @Sendable (String) -> Void) {
        self.configuration = configuration
        self.progress = progress
    }

    /// Runs the load to its end (every trip made and ended), on threads of its own; blocks.
    package func run() -> Summary {
        let start = ContinuousClock.now
        let board = ChaosBoard(calmUntil: .now + .milliseconds(Int64(configuration.calmSeconds * 1_000)))
        let nodes = Nodes(configuration: configuration)
        let done = StopFlag()
        var random = SplitMix64(seed: configuration.seed)
        var drivers: [(token: String, home: Int, spot: Coordinate)] = []
        for i in 0..<configuration.drivers {
            let home = i % configuration.baseURLs.count
            guard
                let made = nodes.json(
                    from: home, "POST", "/v1/drivers",
                    ["name": "Chaos driver \(i + 1)", "vehicle": "car", "plate": "CHAOS-\(i + 1)"]),
                let token = made.json["token"] as? String
            else { continue }
            drivers.append((token, home, configuration.spots[Int(random.next() % UInt64(configuration.spots.count))]))
        }
        progress("\(drivers.count) drivers created")
        let configuration = self.configuration
        // Every driver's fix every 15 s (the nearest-driver index forgets a driver silent for two minutes).
        let fixes = drivers
        Thread.detachNewThread {
            while !done.isSet {
                for d in fixes where !done.isSet {
                    let fix: [String: Any] = [
                        "lat": d.spot.latitude, "lon": d.spot.longitude, "accuracy": 5,
                        "time": ISO8601DateFormatter.chaos.string(from: Date()),
                    ]
                    _ = nodes.json(from: d.home, "POST", "/v1/driver/locations", ["fixes": [fix]], token: d.token)
                }
                for _ in 0..<150 where !done.isSet { Thread.sleep(forTimeInterval: 0.1) }
            }
        }
        for d in drivers {
            let seed = random.next()
            Thread.detachNewThread {
                var driver = ChaosDriver(
                    token: d.token, home: d.home, nodes: nodes, board: board, configuration: configuration, seed: seed)
                driver.run(until: { done.isSet })
            }
        }
        Thread.sleep(forTimeInterval: 2)  // the drivers online and reported before the first booking
        let left = TripsLeft(configuration.trips)
        let riders = DispatchGroup()
        for r in 0..<configuration.riders {
            let seed = random.next()
            riders.enter()
            Thread.detachNewThread {
                var rider = ChaosRider(
                    home: r % configuration.baseURLs.count, nodes: nodes, board: board, configuration: configuration,
                    seed: seed)
                rider.run(taking: left)
                riders.leave()
            }
        }
        riders.wait()
        done.set()
        var summary = board.summary
        summary.nodeSwitches = nodes.switches.load(ordering: .relaxed)
        let elapsed = ContinuousClock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return summary
    }
}

/// Set once: the run is over.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// The bookings still to make, taken one by one by the riders.
final class TripsLeft: Sendable {
    private let left: Atomic<Int>
    init(_ count: Int) { left = Atomic(count) }
    /// True when one was left (and is now the caller's to make).
    func take() -> Bool { left.subtract(1, ordering: .relaxed).newValue >= 0 }
}

/// What every simulated account shares: the counts and the first offers seen.
final class ChaosBoard: Sendable {
    private struct State {
        var summary = DispatchChaos.Summary()
        /// When each trip's booking was answered (removed at its first offer).
        var booked: [String: ContinuousClock.Instant] = [:]
        /// The booked trips still calm when booked.
        var calm: Set<String> = []
        /// Offers seen: trip → driver → the offer's expiry as sent.
        var seen: [String: [String: String]] = [:]
        /// When each trip was last handed back by its driver (a new dispatch round began then).
        var handedBack: [String: ContinuousClock.Instant] = [:]
    }
    private let state = Mutex(State())
    private let calmUntil: ContinuousClock.Instant
    private let started = ContinuousClock.now

    init(calmUntil: ContinuousClock.Instant) { self.calmUntil = calmUntil }

    func count(_ update: @Sendable (inout DispatchChaos.Summary) -> Void) { state.withLock { update(&$0.summary) } }

    func booked(_ trip: String) {
        state.withLock { s in
            s.summary.bookings += 1
            if s.booked[trip] == nil { s.booked[trip] = .now }
            if ContinuousClock.now < calmUntil { s.calm.insert(trip) }
        }
    }

    /// A driver's stream brought an offer of `trip` expiring at `expiresAt`; false when that driver was already
    /// sent this very offer (a stream re-sending it on reconnect).
    func offered(_ trip: String, to driver: String, expiresAt: String) -> Bool {
        state.withLock { s in
            if let before = s.seen[trip]?[driver] {
                if before != expiresAt, s.handedBack[trip] != nil {
                    // A new round after a hand-back may ask a driver of the last one again (the stream may bring
                    // the first offer late, after the hand-back, so its time cannot tell the two apart).
                    s.summary.reofferedAfterHandBack += 1
                    s.seen[trip]?[driver] = expiresAt
                } else if before != expiresAt {
                    s.summary.repeatedOffers += 1
                    s.summary.repeatedExamples.append(
                        "\(trip) to \(driver.prefix(8))…: expiring \(before), then \(expiresAt)")
                }
                return false
            }
            s.seen[trip, default: [:]][driver] = expiresAt
            s.summary.offers += 1
            if let at = s.booked.removeValue(forKey: trip) {
                let elapsed = ContinuousClock.now - at
                let milliseconds =
                    Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
                s.summary.firstOfferMilliseconds.append(milliseconds)
                if s.calm.remove(trip) != nil {
                    s.summary.calmFirstOfferMilliseconds.append(milliseconds)
                    let since = at - started
                    let seconds = Double(since.components.seconds) + Double(since.components.attoseconds) / 1e18
                    s.summary.calmFirstOffers.append((milliseconds, seconds))
                }
            }
            return true
        }
    }

    /// `trip` is being handed back: its dispatch starts again, and may ask the drivers of the last one again.
    func handingBack(_ trip: String) {
        state.withLock { $0.handedBack[trip] = .now }
    }

    /// Seconds since `trip` was last handed back; nil when it never was.
    func secondsSinceHandBack(_ trip: String) -> Double? {
        state.withLock { s in
            s.handedBack[trip].map { at in
                let elapsed = ContinuousClock.now - at
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
        }
    }

    var summary: DispatchChaos.Summary { state.withLock { $0.summary } }
}

/// The nodes as the simulated apps reach them: a request goes to the account's node and, when that one does not
/// answer (killed, paused, restarting), to the next. Plain blocking sockets on loopback, one thread per account
/// (URLSession's event loop cost the load more CPU than the three servers it drove).
final class Nodes: Sendable {
    let ports: [Int]
    let timeoutSeconds: Int
    let switches = Atomic<Int>(0)

    init(configuration: DispatchChaos.Configuration) {
        ports = configuration.baseURLs.map { $0.port ?? 80 }
        timeoutSeconds = max(1, Int(configuration.requestTimeoutSeconds.rounded()))
    }

    /// Sends a JSON request to node `home`, then to the next ones while a node does not answer; the status and
    /// body of the first answer, nil when no node answered.
    func json(
        from home: Int, _ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil,
        headers: [String: String] = [:], timeoutSeconds: Int? = nil
    ) -> (status: Int, json: [String: Any])? {
        var sent = headers.map { ($0.key, $0.value) }
        if let token { sent.append(("Authorization", "Bearer \(token)")) }
        for attempt in 0..<(ports.count * 2) {
            var client = LoopbackHTTPClient(port: ports[(home + attempt) % ports.count])
            client.timeoutSeconds = timeoutSeconds ?? self.timeoutSeconds
            if let answer = try? client.send(method, path, headers: sent, json: body ?? (method == "POST" ? [:] : nil)),
                answer.status != 502, answer.status != 503
            {
                return (answer.status, answer.jsonObject ?? [:])
            }
            switches.add(1, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 0.1)
        }
        return nil
    }

    /// Follows `path` (an SSE stream) on node `index`, handing each event's type and data to `event`, until the
    /// connection fails or `done()` (checked every second); false when it never opened.
    @discardableResult
    func follow(
        _ index: Int, _ path: String, token: String, done: () -> Bool, event: (String, String) -> Void
    ) -> Bool {
        guard let fd = try? LoopbackSocket.connect(port: ports[index % ports.count], nonBlocking: false) else {
            return false
        }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = LoopbackSocket.request(
            method: "GET", path: path,
            headers: [("Authorization", "Bearer \(token)"), ("Accept", "text/event-stream")],
            keepAlive: true)
        guard (try? LoopbackSocket.writeAll(fd, request)) != nil else { return false }
        var decoder = HTTPResponseDecoder()
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var quiet = 0
        while !done() {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                quiet += 1
                if quiet > 40 { return true }  // no heartbeat for 40 s: a paused node; try another
                continue
            }
            guard n > 0, let body = try? decoder.feed(buffer[0..<n]) else { return decoder.status != nil }
            quiet = 0
            if let status = decoder.status, status != 200 { return false }
            text += body
            // Events end with an empty line.
            while let end = Self.eventEnd(in: text) {
                var type = "message"
                var data = ""
                for line in String(decoding: text[..<end], as: UTF8.self).split(separator: "\n") {
                    if line.hasPrefix("event:") { type = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                    if line.hasPrefix("data:") { data += line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                }
                text.removeFirst(end + 2)
                event(type, data)
            }
        }
        return true
    }

    /// Where the first event of `text` ends (the index of its blank line's first newline).
    private static func eventEnd(in text: [UInt8]) -> Int? {
        guard text.count >= 2 else { return nil }
        for i in 0..<(text.count - 1) where text[i] == 10 && text[i + 1] == 10 { return i }
        return nil
    }
}

/// One simulated driver: online at a spot, the offer stream on its node (the next one when it fails), each
/// offer accepted, declined or ignored. Its fixes are posted by `DispatchChaos.report`.
struct ChaosDriver {
    let token: String
    let home: Int
    let nodes: Nodes
    let board: ChaosBoard
    let configuration: DispatchChaos.Configuration
    var random: SplitMix64

    init(
        token: String, home: Int, nodes: Nodes, board: ChaosBoard, configuration: DispatchChaos.Configuration,
        seed: UInt64
    ) {
        self.token = token
        self.home = home
        self.nodes = nodes
        self.board = board
        self.configuration = configuration
        random = SplitMix64(seed: seed)
    }

    mutating func run(until done: () -> Bool) {
        _ = nodes.json(from: home, "POST", "/v1/driver/status", ["status": "online"], token: token)
        var node = home
        while !done() {
            nodes.follow(node, "/v1/driver/stream", token: token, done: done) { type, data in
                guard type == "offer",
                    let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any],
                    let trip = object["trip_id"] as? String,
                    board.offered(trip, to: token, expiresAt: object["expires_at"] as? String ?? "")
                else { return }
                answer(trip)
            }
            node += 1
            nodes.switches.add(1, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// Accepts, declines or ignores the offer of `trip` on a node chosen at random.
    private mutating func answer(_ trip: String) {
        let roll = random.nextDouble()
        let node = Int(random.next() % UInt64(nodes.ports.count))
        if roll < configuration.acceptProbability {
            guard nodes.json(from: node, "POST", "/v1/trips/\(trip)/accept", token: token)?.status == 200 else {
                board.count { $0.acceptsRefused += 1 }
                return
            }
            board.count { $0.accepted += 1 }
            if random.nextDouble() < configuration.handBackProbability {
                Thread.sleep(forTimeInterval: 0.3)
                // Forgotten first: the trip's new dispatch may reach other drivers before this answer does.
                board.handingBack(trip)
                let back = nodes.json(from: node, "POST", "/v1/trips/\(trip)/cancel", ["reason": "chaos"], token: token)
                if back?.status == 200 { board.count { $0.handBacks += 1 } }
            }
        } else if roll < configuration.acceptProbability + configuration.declineProbability {
            if nodes.json(from: node, "POST", "/v1/trips/\(trip)/decline", token: token)?.status == 200 {
                board.count { $0.declines += 1 }
            }
        } else {
            board.count { $0.ignored += 1 }
        }
    }
}

/// One simulated rider: books, waits for a driver or the end, cancels a trip a driver took; again while trips
/// are left to make.
struct ChaosRider {
    let home: Int
    let nodes: Nodes
    let board: ChaosBoard
    let configuration: DispatchChaos.Configuration
    var random: SplitMix64

    init(home: Int, nodes: Nodes, board: ChaosBoard, configuration: DispatchChaos.Configuration, seed: UInt64) {
        self.home = home
        self.nodes = nodes
        self.board = board
        self.configuration = configuration
        random = SplitMix64(seed: seed)
    }

    mutating func run(taking left: TripsLeft) {
        guard let made = nodes.json(from: home, "POST", "/v1/riders", ["name": "Chaos rider"]),
            let token = made.json["token"] as? String
        else { return }
        while left.take() {
            let pickup = configuration.spots[Int(random.next() % UInt64(configuration.spots.count))]
            let dropoff = configuration.destinations[Int(random.next() % UInt64(configuration.destinations.count))]
            let body: [String: Any] = [
                "pickup": ["lat": pickup.latitude, "lon": pickup.longitude],
                "dropoff": ["lat": dropoff.latitude, "lon": dropoff.longitude],
            ]
            // One key for every retry: a booking whose answer was lost on a dying node is not made twice.
            let key = UUID().uuidString
            guard
                let booked = nodes.json(
                    from: home, "POST", "/v1/bookings", body, token: token, headers: ["Idempotency-Key": key]),
                booked.status == 201 || booked.status == 200, let trip = booked.json["id"] as? String
            else {
                board.count { $0.bookingFailures += 1 }
                continue
            }
            board.booked(trip)
            follow(trip, token: token)
        }
    }

    /// Reads the trip every half second until a driver has it (then cancels it, unless the driver hands it
    /// back) or it ended.
    private mutating func follow(_ trip: String, token: String) {
        let started = Date()
        let deadline = started.addingTimeInterval(configuration.patienceSeconds)
        // When the trip last entered dispatch as the rider saw it: booked, or handed back by its driver.
        var dispatchingSince = started
        var heldByDriver = false
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            let node = Int(random.next() % UInt64(nodes.ports.count))
            // A short wait: a paused node must not delay what the rider sees by more than a second.
            guard let read = nodes.json(from: node, "GET", "/v1/bookings/\(trip)", token: token, timeoutSeconds: 1),
                let status = read.json["status"] as? String
            else { continue }
            switch status {
            case "dispatching", "requested":
                if heldByDriver { (dispatchingSince, heldByDriver) = (Date(), false) }
                continue
            case "no_driver_found":
                let dispatchSeconds = configuration.dispatchSeconds
                // Since the trip last entered dispatch: booked, or handed back (which the rider may not have seen).
                let seen = Date().timeIntervalSince(dispatchingSince)
                let waited = board.secondsSinceHandBack(trip).map { min(seen, $0) } ?? seen
                board.count { summary in
                    summary.noDriverFound += 1
                    // Only the trips that reached the deadline (others ran out of batches before it).
                    if let limit = dispatchSeconds, waited > limit - 1 {
                        summary.timeoutLatenessSeconds.append(waited - limit)
                    }
                }
                return
            case "accepted", "arriving":
                heldByDriver = true
                // Give a hand-back its moment, then cancel what is still the driver's.
                Thread.sleep(forTimeInterval: 0.8)
                let cancelled = nodes.json(
                    from: home, "POST", "/v1/bookings/\(trip)/cancel", ["reason": "chaos run"], token: token)
                if let status = cancelled?.json["status"] as? String, status.hasPrefix("cancelled") {
                    board.count { $0.riderCancels += 1 }
                    return
                }
                continue  // handed back meanwhile: dispatching again
            default:
                return  // ended otherwise
            }
        }
        _ = nodes.json(from: home, "POST", "/v1/bookings/\(trip)/cancel", ["reason": "gave up"], token: token)
        board.count { $0.givenUp += 1 }
    }
}

extension ISO8601DateFormatter {
    /// RFC 3339 with milliseconds, as fixes are sent.
    static var chaos: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
