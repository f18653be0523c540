import CabHTTP
import CabTestSupport
import Foundation
import Synchronization
import Testing

/// Responses completed later by another thread while the connection waits parked.
@Suite struct DeferredResponseTests {
    /// Counts closures that ran, to prove each runs exactly once.
    final class Runs: Sendable {
        let count = Atomic<Int>(0)
        func ran() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    let runs = Runs()
    let server: TestServer

    init() throws {
        let runs = runs
        // One worker thread: a parked request must not hold it, or the second request below could not be served.
        server = try TestServer(configuration: HTTPServerConfiguration(workerThreads: 1)) { r in
            r.get("/later/{ms}") { request in
                let pending = DeferredResponse()
                let milliseconds = Int(request.pathParameters["ms"] ?? "") ?? 0
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) {
                    pending.complete {
                        runs.ran()
                        return .text("done after \(milliseconds) ms", status: 201)
                    }
                }
                return .deferred(pending)
            }
            r.get("/already") { _ in
                let pending = DeferredResponse()
                pending.complete {
                    runs.ran()
                    return .text("already")
                }
                return .deferred(pending)
            }
            r.get("/fails") { _ in
                let pending = DeferredResponse()
                DispatchQueue.global().async {
                    pending.complete {
                        throw HTTPError(status: 409, title: "Conflict", detail: "taken", code: "conflict")
                    }
                }
                return .deferred(pending)
            }
        }
    }

    @Test func answersWhenCompletedLater() throws {
        let response = try server.get("/later/50")
        #expect(response.status == 201)
        #expect(response.text == "done after 50 ms")
        #expect(runs.value == 1)
    }

    @Test func answersWhenCompletedBeforeParking() throws {
        let response = try server.get("/already")
        #expect(response.status == 200 && response.text == "already")
    }

    @Test func aParkedRequestHoldsNoWorkerThread() throws {
        let slow = try HTTPTestConnection(port: server.port)
        try slow.sendRequest("GET", "/later/1500", headers: [:], body: [])
        let started = Date()
        // The only worker thread is free while the slow request waits: this one is answered at once.
        #expect(try server.get("/healthz").status == 200)
        #expect(Date().timeIntervalSince(started) < 1.0)
        #expect(try slow.readResponse(method: "GET").status == 201)
    }

    @Test func manyParkedAtOnceAllGetTheirOwnAnswer() throws {
        let connections = try (0..<40).map { i -> (Int, HTTPTestConnection) in
            let c = try HTTPTestConnection(port: server.port)
            try c.sendRequest("GET", "/later/\(10 + i % 7 * 10)", headers: [:], body: [])
            return (10 + i % 7 * 10, c)
        }
        for (ms, c) in connections {
            let response = try c.readResponse(method: "GET")
            #expect(response.text == "done after \(ms) ms")
        }
        #expect(runs.value == 40)
    }

    @Test func errorsAreProblemsAsFromHandlers() throws {
        let response = try server.get("/fails")
        #expect(response.status == 409)
        #expect(response.text.contains("taken"))
    }

    /// The client goes away while its request is parked: the completed closure still runs, once.
    @Test func theClosureRunsEvenWhenTheClientLeft() throws {
        do {
            let c = try HTTPTestConnection(port: server.port)
            try c.sendRequest("GET", "/later/100", headers: [:], body: [])
        }  // closed here
        #expect(server.eventually { runs.value == 1 })
        usleep(200_000)
        #expect(runs.value == 1)
    }

    @Test func waitRunsTheClosureInProcess() throws {
        let pending = DeferredResponse()
        DispatchQueue.global().async { pending.complete { .text("in process") } }
        let response = try pending.wait()
        guard case .bytes(let bytes) = response.body else { throw CancellationError() }
        #expect(String(decoding: bytes, as: UTF8.self) == "in process")
    }
}
