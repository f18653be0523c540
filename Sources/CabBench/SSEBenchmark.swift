import CabHTTP
import CabLoopback
import Foundation
import Synchronization

/// The SSE fan-out ceiling of CabHTTP alone: an in-process `HTTPServer` whose `EventStream`s a publisher thread
/// feeds at a fixed total rate (each event carrying its send time in ms), read by `SSEFanOut`'s clients in the same
/// process. It also checks the fan-out tool itself before the tracking stream exists.
package struct SSEBenchmark {
    package struct Configuration {
        package var clients = 5000
        /// Events per second over all clients together.
        package var eventsPerSecond = 20_000
        package var durationSeconds = 10
        package var serverThreads = HTTPServerConfiguration.processorCount

        /// Creates one from every stored property (what the memberwise initializer was in `cab`).
        package init(
            clients: Int = 5000, eventsPerSecond: Int = 20_000, durationSeconds: Int = 10,
            serverThreads: Int = HTTPServerConfiguration.processorCount
        ) {
            self.clients = clients
            self.eventsPerSecond = eventsPerSecond
            self.durationSeconds = durationSeconds
            self.serverThreads = serverThreads
        }
    }

    package struct Result {
        package var fanOut: SSEFanOut.Result
        /// Events the publisher queued during the window and events dropped by slow streams' bounded buffers.
        package var published: Int
        package var dropped: Int
        package var tickMilliseconds: Double
        package var residentBytes: Int?
    }

    package let configuration: Configuration

    package func run() throws(BenchError) -> Result {
        let hub = StreamRegistry()
        var router = Router()
        router.get("/bench/stream") { _ in
            let stream = EventStream(capacity: 64, heartbeatInterval: nil)
            hub.add(stream)
            stream.onClose { hub.remove(stream) }
            return stream.response()
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                port: 0, workerThreads: configuration.serverThreads, maxConnections: configuration.clients + 100,
                maxConnectionsPerAddress: 0),
            router: router)
        LoopbackSocket.raiseOpenFileLimit(to: 2 * configuration.clients + 1024)
        let port: Int
        do {
            port = try server.start()
        } catch {
            throw BenchError("cannot start the in-process server: \(error.message)")
        }
        defer { server.shutdown() }
        let fanOut = SSEFanOut(configuration: .init(port: port, path: "/bench/stream", clients: configuration.clients))
        fanOut.connect()
        let tick = Double(max(1, hub.count)) / Double(configuration.eventsPerSecond)
        let publisher = Publisher(hub: hub, tickSeconds: tick)
        publisher.start()
        let result = fanOut.measure(seconds: Double(configuration.durationSeconds))
        let (published, dropped) = publisher.stop()
        fanOut.closeAll()
        return Result(
            fanOut: result, published: published, dropped: dropped, tickMilliseconds: tick * 1000,
            residentBytes: LoopbackServer.statusField("VmHWM", pid: getpid()))
    }

    /// Creates one from every stored property (what the memberwise initializer was in `cab`).
    package init(configuration: Configuration) {
        self.configuration = configuration
    }
}

/// The open streams. `Mutex` protects the list.
private final class StreamRegistry: Sendable {
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    package func add(_ stream: EventStream) { streams.withLock { $0[ObjectIdentifier(stream)] = stream } }
    package func remove(_ stream: EventStream) {
        _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
    }
    package var count: Int { streams.withLock { $0.count } }
    package var all: [EventStream] { streams.withLock { Array($0.values) } }
}

/// A thread sending one event to every stream each tick until stopped. `Atomic`s carry the stop flag and tallies.
private final class Publisher: Sendable {
    package let hub: StreamRegistry
    package let tickSeconds: Double
    private let stopping = Atomic<Bool>(false)
    private let published = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    package init(hub: StreamRegistry, tickSeconds: Double) {
        self.hub = hub
        self.tickSeconds = tickSeconds
    }

    package func start() {
        let thread = Thread { [self] in
            var sequence = 0
            var next = monotonicSeconds()
            while !stopping.load(ordering: .relaxed) {
                let streams = hub.all
                for stream in streams {
                    sequence += 1
                    let now = (wallClockMilliseconds() * 1000).rounded() / 1000
                    stream.send(event: "position", id: String(sequence), data: "{\"seq\":\(sequence),\"time\":\(now)}")
                }
                published.add(streams.count, ordering: .relaxed)
                next += tickSeconds
                let wait = next - monotonicSeconds()
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) } else { next = monotonicSeconds() }
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops the thread; returns events published and events dropped by the streams still open.
    package func stop() -> (published: Int, dropped: Int) {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        return (published.load(ordering: .relaxed), hub.all.reduce(0) { $0 + $1.droppedEvents })
    }
}
