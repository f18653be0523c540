import CabHTTP
import CabTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// Handlers that may block run on the handler pool while their connections wait parked: they never hold up
/// libmicrohttpd's epoll threads, so `/healthz` and SSE streams keep going; a full pool answers 503.
@Suite struct HandlerPoolTests {
    /// A gate slow handlers wait at until the test opens it, counting who entered.
    final class Gate: Sendable {
        let entered = Atomic<Int>(0)
        let semaphore = DispatchSemaphore(value: 0)
        func pass() {
            entered.add(1, ordering: .relaxed)
            semaphore.wait()
        }
        /// Requests of `/never` whose handler ran.
        let deferred = Atomic<Int>(0)
        func open(_ count: Int) { for _ in 0..<count { semaphore.signal() } }
        var count: Int { entered.load(ordering: .relaxed) }
    }

    /// One epoll thread, so that a single handler blocking inline would stall every connection.
    static func server(
        handlerThreads: Int, queue: Int = 16, gate: Gate, stream: EventStream? = nil,
        grace: Duration = .seconds(10)
    ) throws -> TestServer {
        try TestServer(
            configuration: HTTPServerConfiguration(
                workerThreads: 1, shutdownGracePeriod: grace, handlerThreads: handlerThreads, handlerQueueLength: queue)
        ) { r in
            r.get("/slow") { _ in
                gate.pass()
                return .text("slow done")
            }
            // A write that never becomes durable, its handler on the pool and inline.
            r.get("/never") { _ in
                gate.deferred.add(1, ordering: .relaxed)
                return .deferred(DeferredResponse())
            }
            r.get("/never-inline", execution: .inline) { _ in
                gate.deferred.add(1, ordering: .relaxed)
                return .deferred(DeferredResponse())
            }
            if let stream { r.get("/events") { _ in stream.response() } }
        }
    }

    @Test func slowHandlersDoNotDelayHealthz() throws {
        let gate = Gate()
        let server = try Self.server(handlerThreads: 2, gate: gate)
        let slow = try (0..<4).map { _ in try HTTPTestConnection(port: server.port) }
        for connection in slow { try connection.sendRequest("GET", "/slow") }
        #expect(server.eventually { gate.count == 2 && server.server.handlerLoad.waiting == 2 })
        let started = Date()
        let health = try server.get("/healthz")
        #expect(health.status == 200)
        #expect(Date().timeIntervalSince(started) < 1.0)
        gate.open(4)
        for connection in slow { #expect(try connection.readResponse().text == "slow done") }
    }

    /// The baseline the pool removes: inline, one blocked handler holds the only epoll thread.
    @Test func inlineASlowHandlerStallsHealthz() throws {
        let gate = Gate()
        let server = try Self.server(handlerThreads: 0, gate: gate)
        let slow = try HTTPTestConnection(port: server.port)
        try slow.sendRequest("GET", "/slow")
        #expect(server.eventually { gate.count == 1 })
        let probe = try HTTPTestConnection(port: server.port, timeoutSeconds: 1)
        try probe.sendRequest("GET", "/healthz")
        #expect(throws: (any Error).self) { try probe.readResponse() }
        gate.open(1)
        #expect(try slow.readResponse().text == "slow done")
    }

    @Test func heartbeatsKeepComingWhileEveryHandlerThreadIsBusy() throws {
        let gate = Gate()
        let stream = EventStream(heartbeatInterval: .milliseconds(50))
        let server = try Self.server(handlerThreads: 2, gate: gate, stream: stream)
        let events = try HTTPTestConnection(port: server.port, timeoutSeconds: 2)
        try events.sendRequest("GET", "/events")
        #expect(try events.readHead().status == 200)
        let slow = try (0..<3).map { _ in try HTTPTestConnection(port: server.port) }
        for connection in slow { try connection.sendRequest("GET", "/slow") }
        #expect(server.eventually { gate.count == 2 })
        // Both pool threads are blocked and one request waits: heartbeats still arrive every 50 ms.
        let started = Date()
        var heartbeats = 0
        while heartbeats < 5, let chunk = try events.readChunk() {
            heartbeats += String(decoding: chunk, as: UTF8.self).components(separatedBy: ": heartbeat").count - 1
        }
        #expect(heartbeats >= 5)
        #expect(Date().timeIntervalSince(started) < 1.5)
        gate.open(3)
        for connection in slow { #expect(try connection.readResponse().status == 200) }
    }

    /// A handler's deferred response (a write waiting for its group commit) is finished on a pool thread when it
    /// completes, never on the completing thread (a store's writer must not run work that may write).
    @Test func aDeferredResponseIsNotFinishedOnTheCompletingThread() throws {
        let threads = Mutex<(completer: pthread_t?, finisher: pthread_t?)>((nil, nil))
        let server = try TestServer(configuration: HTTPServerConfiguration(workerThreads: 1, handlerThreads: 2)) { r in
            r.get("/later") { _ in
                let pending = DeferredResponse()
                Thread.detachNewThread {
                    threads.withLock { $0.completer = pthread_self() }
                    pending.complete {
                        threads.withLock { $0.finisher = pthread_self() }
                        return .text("later")
                    }
                    usleep(200_000)  // the completing thread stays alive, so its id cannot be reused meanwhile
                }
                return .deferred(pending)
            }
        }
        #expect(try server.get("/later").text == "later")
        let (completer, finisher) = threads.withLock { $0 }
        let both = try #require(completer.flatMap { c in finisher.map { (c, $0) } })
        #expect(pthread_equal(both.0, both.1) == 0)
    }

    @Test func aFullPoolAnswers503WithRetryAfter() throws {
        let gate = Gate()
        let server = try Self.server(handlerThreads: 1, queue: 1, gate: gate)
        let running = try HTTPTestConnection(port: server.port)
        try running.sendRequest("GET", "/slow")
        #expect(server.eventually { gate.count == 1 })
        let waiting = try HTTPTestConnection(port: server.port)
        try waiting.sendRequest("GET", "/slow")
        #expect(server.eventually { server.server.handlerLoad.waiting == 1 })

        let refused = try server.get("/slow")
        #expect(refused.status == 503)
        #expect(refused.headers["retry-after"] == "1")
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(refused.jsonObject?["code"] as? String == "server_busy")
        #expect((refused.jsonObject?["detail"] as? String)?.contains("Retry this request after 1 s") == true)
        #expect(try server.get("/healthz").status == 200)  // inline: answered while the pool is full
        #expect(server.metrics.render().contains("http_requests_refused_busy_total 1\n"))

        gate.open(2)
        #expect(try running.readResponse().text == "slow done")
        #expect(try waiting.readResponse().text == "slow done")
        #expect(gate.count == 2)  // the refused request never ran
    }

    /// Past the grace period, running handlers, a queued request and parked deferred responses (one from a pool
    /// handler, one from an inline one) are each answered 503 and the server stops: no hang, and no abort from
    /// libmicrohttpd for suspended connections.
    @Test func shutdownWithParkedRequestsIsClean() throws {
        let gate = Gate()
        let server = try Self.server(handlerThreads: 2, queue: 4, gate: gate, grace: .milliseconds(200))
        var connections: [(String, HTTPTestConnection)] = []
        for path in ["/never", "/never-inline"] {
            let connection = try HTTPTestConnection(port: server.port)
            try connection.sendRequest("GET", path)
            connections.append((path, connection))
        }
        #expect(server.eventually { gate.deferred.load(ordering: .relaxed) == 2 })
        for _ in 0..<2 {
            let connection = try HTTPTestConnection(port: server.port)
            try connection.sendRequest("GET", "/slow")
            connections.append(("/slow running", connection))
        }
        #expect(server.eventually { gate.count == 2 })
        let queued = try HTTPTestConnection(port: server.port)
        try queued.sendRequest("GET", "/slow")
        connections.append(("/slow queued", queued))
        #expect(server.eventually { server.server.handlerLoad.waiting == 1 })

        let started = Date()
        let stopping = ThreadTask { server.server.shutdown() }
        for (name, connection) in connections {
            let response: HTTPTestResponse
            do { response = try connection.readResponse() } catch {
                Issue.record("\(name): \(error)")
                continue
            }
            #expect(response.status == 503, "\(name)")
            #expect(response.jsonObject?["code"] as? String == "server_stopping", "\(name)")
        }
        try stopping.value()
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(server.server.port == nil)
        gate.open(3)  // the running handlers end after the server stopped; the queued one never runs
        #expect(server.eventually { server.server.handlerLoad.running == 0 })
        #expect(gate.count == 2)
    }
}
