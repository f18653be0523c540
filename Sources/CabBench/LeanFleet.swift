import CabClient
import CabCore
import CabGeo
import Foundation
import Synchronization

/// `cab simulate --lean`: as many phones as the servers can take, for the fleet figures of issue 17. The full
/// simulation (`Simulation`) gives every driver a task, a `LocationReporter` and real road routes, and at 50,000
/// drivers that, not the servers, was the limit on this 2-core machine. Here a driver is four numbers in flat
/// arrays: it goes back and forth at 10 m/s on the straight line between two junctions of the map, and a few
/// threads per server post every driver's fix on time (one per `rateSeconds`, the drivers' first fixes staggered
/// over the first period) over one keep-alive connection each. Servers on 127.0.0.1 only.
package struct LeanFleet: Sendable {
    /// What to run.
    package struct Configuration: Sendable {
        /// The servers' ports on 127.0.0.1; driver `i` signs up and posts on `ports[i % ports.count]`.
        package var ports: [Int]
        package var drivers: Int
        /// Seconds between one driver's fixes.
        package var rateSeconds: Double
        package var durationSeconds: Double
        /// Threads (one connection each) per server.
        package var threadsPerNode = 4
        package var seed: UInt64 = 1
        /// A dispatcher's token: every node's fleet stream is followed and each position timed from its fix.
        package var streamToken: String?
        /// Set to end the posting before `durationSeconds` (`cab bench cluster` runs a fleet while it measures).
        package var stop: LeanFleetStop?

        /// A fleet of `drivers` on the servers at `ports`.
        package init(ports: [Int], drivers: Int, rateSeconds: Double, durationSeconds: Double) {
            precondition(!ports.isEmpty && drivers > 0 && rateSeconds > 0, "servers, drivers and a rate")
            self.ports = ports
            self.drivers = drivers
            self.rateSeconds = rateSeconds
            self.durationSeconds = durationSeconds
        }
    }

    /// What the run measured.
    package struct Summary: Sendable {
        package var drivers = 0
        package var signUpSeconds = 0.0
        package var uploads = 0
        /// Uploads not answered 200 (no answer, refused, rate-limited).
        package var failedUploads = 0
        /// Fixes accepted per second after the first period (every driver reporting by then).
        package var steadyFixesPerSecond = 0.0
        /// The fixes a steady fleet should deliver per second: drivers / rate.
        package var expectedFixesPerSecond = 0.0
        /// Uploads posted later than their schedule by more than one second (the simulator fell behind).
        package var lateUploads = 0
        package var uploadP50Milliseconds: Double?
        package var uploadP99Milliseconds: Double?
        package var seconds = 0.0
        /// With `streamToken`, per node: a fix's delay from the phone to that node's fleet stream, p50 and p99 in
        /// milliseconds, positions timed, positions missed in gaps and reconnections.
        package var streamDelays: [(p50: Double?, p99: Double?, events: Int, missed: Int, reconnects: Int)] = []
    }

    package let configuration: Configuration
    /// Junctions of the map the drivers move between.
    package let junctions: [Coordinate]

    /// A fleet over `junctions` (at least two).
    package init(configuration: Configuration, junctions: [Coordinate]) {
        precondition(junctions.count >= 2, "drivers move between junctions")
        self.configuration = configuration
        self.junctions = junctions
    }

    /// Signs the drivers up, then posts their fixes for `durationSeconds`; blocks.
    package func run(progress: @escaping @Sendable (String) -> Void) -> Summary {
        let c = configuration
        // Followed before the drivers sign up, so no snapshot of older positions is timed.
        let streams =
            c.streamToken.map { token in
                c.ports.map { port in
                    FleetStreamDelay(CabAPIClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: token))
                }
            } ?? []
        defer { for s in streams { s.stop() } }
        let signUpStarted = ContinuousClock.now
        let tokens = signUp()
        var summary = Summary()
        summary.signUpSeconds = (ContinuousClock.now - signUpStarted).inSeconds
        summary.drivers = tokens.count { !$0.isEmpty }
        progress("\(summary.drivers) drivers signed up in \(String(format: "%.1f", summary.signUpSeconds)) s")
        let paths = LeanPaths(junctions: junctions, drivers: c.drivers, seed: c.seed)
        let counters = LeanCounters()
        let started = ContinuousClock.now
        let steadyFrom = started + .milliseconds(Int64(c.rateSeconds * 1_000))
        let end = started + .milliseconds(Int64(c.durationSeconds * 1_000))
        let group = DispatchGroup()
        for node in c.ports.indices {
            for lane in 0..<c.threadsPerNode {
                group.enter()
                Thread.detachNewThread {
                    Self.post(
                        node: node, lane: lane, configuration: c, tokens: tokens, paths: paths, counters: counters,
                        started: started, steadyFrom: steadyFrom, end: end)
                    group.leave()
                }
            }
        }
        group.wait()
        // Until the last post: when the lanes fall behind, the run outlasts its duration.
        let steadySeconds = max(0.001, (ContinuousClock.now - steadyFrom).inSeconds)
        summary.uploads = counters.uploads.load(ordering: .relaxed)
        summary.failedUploads = counters.failed.load(ordering: .relaxed)
        summary.lateUploads = counters.late.load(ordering: .relaxed)
        summary.steadyFixesPerSecond = Double(counters.steadyAccepted.load(ordering: .relaxed)) / steadySeconds
        summary.expectedFixesPerSecond = Double(summary.drivers) / c.rateSeconds
        let latencies = counters.latencies.withLock { $0 }
        summary.uploadP50Milliseconds = latencies.percentile(50)
        summary.uploadP99Milliseconds = latencies.percentile(99)
        summary.seconds = (ContinuousClock.now - started).inSeconds
        summary.streamDelays = streams.map { s in
            let samples = s.delays.withLock { $0 }
            return (
                samples.percentile(50), samples.percentile(99), samples.count, s.missed.load(ordering: .relaxed),
                s.reconnects.load(ordering: .relaxed)
            )
        }
        return summary
    }

    /// The drivers' tokens, made on their servers by every lane at once ("" for a sign-up that failed).
    private func signUp() -> [String] {
        let c = configuration
        let tokens = Mutex([String](repeating: "", count: c.drivers))
        let group = DispatchGroup()
        for node in c.ports.indices {
            for lane in 0..<c.threadsPerNode {
                group.enter()
                Thread.detachNewThread {
                    var connection = KeepAliveConnection(port: c.ports[node])
                    var i = node + lane * c.ports.count
                    while i < c.drivers {
                        let body = #"{"name":"Lean driver \#(i + 1)","vehicle":"car","plate":"LEAN-\#(i + 1)"}"#
                        let answer = connection.send(
                            "POST", "/v1/drivers", headers: [("Content-Type", "application/json")],
                            body: Array(body.utf8))
                        if answer.status == 201 || answer.status == 200,
                            let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
                            let token = object["token"] as? String
                        {
                            tokens.withLock { $0[i] = token }
                        }
                        i += c.ports.count * c.threadsPerNode
                    }
                    group.leave()
                }
            }
        }
        group.wait()
        return tokens.withLock { $0 }
    }

    /// One lane's drivers (every `ports.count * threadsPerNode`-th, starting at `node + lane * ports.count`), each
    /// posted at its own offset in every period until `end`.
    private static func post(
        node: Int, lane: Int, configuration c: Configuration, tokens: [String], paths: LeanPaths,
        counters: LeanCounters, started: ContinuousClock.Instant, steadyFrom: ContinuousClock.Instant,
        end: ContinuousClock.Instant
    ) {
        var connection = KeepAliveConnection(port: c.ports[node])
        let stride = c.ports.count * c.threadsPerNode
        let mine = Array(Swift.stride(from: node + lane * c.ports.count, to: c.drivers, by: stride)).filter {
            !tokens[$0].isEmpty
        }
        guard !mine.isEmpty else { return }
        let periodMilliseconds = c.rateSeconds * 1_000
        for period in 0... {
            for i in mine {
                // Driver i's slot in the period: drivers spread evenly over it.
                let offset = periodMilliseconds * (Double(period) + Double(i) / Double(c.drivers))
                let due = started + .milliseconds(Int64(offset))
                if due >= end || c.stop?.isRequested == true { return }
                let now = ContinuousClock.now
                if due > now {
                    Thread.sleep(forTimeInterval: (due - now).inSeconds)
                } else if (now - due) > .seconds(1) {
                    counters.late.add(1, ordering: .relaxed)
                }
                let seconds = (ContinuousClock.now - started).inSeconds
                let p = paths.position(of: i, afterSeconds: seconds)
                let time = RFC3339.format(Instant.now())
                let body = #"{"fixes":[{"lat":\#(p.latitude),"lon":\#(p.longitude),"time":"\#(time)","accuracy":5}]}"#
                let sent = ContinuousClock.now
                let answer = connection.send(
                    "POST", "/v1/driver/locations",
                    headers: [("Authorization", "Bearer \(tokens[i])"), ("Content-Type", "application/json")],
                    body: Array(body.utf8))
                let answered = ContinuousClock.now
                counters.latencies.withLock { $0.add((answered - sent).inSeconds * 1_000) }
                counters.uploads.add(1, ordering: .relaxed)
                guard answer.status == 200 else {
                    counters.failed.add(1, ordering: .relaxed)
                    continue
                }
                if sent >= steadyFrom, Self.acceptedOne(answer.body) {
                    counters.steadyAccepted.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// True when a `POST /v1/driver/locations` answer says its fix was accepted (`"accepted":1`).
    package static func acceptedOne(_ body: [UInt8]) -> Bool {
        String(decoding: body, as: UTF8.self).contains(#""accepted":1"#)
    }
}

/// Every driver's line between two junctions, in flat arrays: driver `i` goes from `from[i]` to `to[i]` and back
/// at 10 m/s, starting at a point of its own along the way.
final class LeanPaths: Sendable {
    private let from: [Coordinate]
    private let to: [Coordinate]
    /// Seconds one way takes.
    private let leg: [Double]
    /// Seconds along the round trip at the start.
    private let phase: [Double]
    static let metersPerSecond = 10.0

    init(junctions: [Coordinate], drivers: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var from: [Coordinate] = []
        var to: [Coordinate] = []
        var leg: [Double] = []
        var phase: [Double] = []
        for _ in 0..<drivers {
            let a = junctions[Int(random.next() % UInt64(junctions.count))]
            var b = junctions[Int(random.next() % UInt64(junctions.count))]
            if a == b { b = junctions[(junctions.firstIndex(of: a)! + 1) % junctions.count] }
            let seconds = max(1, a.distanceMeters(to: b) / Self.metersPerSecond)
            from.append(a)
            to.append(b)
            leg.append(seconds)
            phase.append(random.nextDouble() * 2 * seconds)
        }
        (self.from, self.to, self.leg, self.phase) = (from, to, leg, phase)
    }

    /// Where driver `i` is `seconds` into the run.
    func position(of i: Int, afterSeconds seconds: Double) -> Coordinate {
        let round = 2 * leg[i]
        let t = (phase[i] + seconds).truncatingRemainder(dividingBy: round)
        let f = t <= leg[i] ? t / leg[i] : (round - t) / leg[i]
        return Coordinate(
            latitude: from[i].latitude + (to[i].latitude - from[i].latitude) * f,
            longitude: from[i].longitude + (to[i].longitude - from[i].longitude) * f)
    }
}

/// Ends a `LeanFleet`'s posting early: every lane returns at its next due post.
package final class LeanFleetStop: Sendable {
    private let requested = Atomic<Bool>(false)

    /// Not requested yet.
    package init() {}

    /// Whether `request()` was called.
    package var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Asks every lane to stop.
    package func request() { requested.store(true, ordering: .relaxed) }
}

/// The lanes' counts.
final class LeanCounters: Sendable {
    let uploads = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let late = Atomic<Int>(0)
    let steadyAccepted = Atomic<Int>(0)
    let latencies = Mutex(LatencySamples(capacity: 200_000))
}
