import CabClient
import CabLoopback
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Fix uploads of many simulated phones over a few keep-alive connections per server
/// (`cab simulate --connections N`): each server gets `connectionsPerNode` threads, each holding one HTTP/1.1
/// connection and sending the queued uploads one after another. Foundation's `URLSession` costs the simulator
/// far more than the server per upload, so with tens of thousands of drivers the simulator, not the server, set
/// the limit; this is the cheap transport for measuring the server. The phones' logic (`LocationReporter`) is
/// unchanged. Servers on 127.0.0.1 only; the threads live as long as the process.
package final class KeepAlivePool: Sendable {
    /// One upload waiting for a connection.
    struct Job: Sendable {
        let token: String
        let body: [UInt8]
        let done: @Sendable (_ status: Int, _ retryAfterSeconds: Double?) -> Void
    }

    /// One server's queue, taken by its connections' threads.
    final class Lane: Sendable {
        let port: Int
        let jobs = Mutex<[Job]>([])
        // DispatchSemaphore is thread-safe.
        let ready = DispatchSemaphore(value: 0)

        init(port: Int) { self.port = port }

        func submit(_ job: Job) {
            jobs.withLock { $0.append(job) }
            ready.signal()
        }

        func next() -> Job {
            while true {
                ready.wait()
                if let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return job }
            }
        }
    }

    private let lanes: [Lane]

    /// A pool for the servers on 127.0.0.1:`ports`, `connectionsPerNode` connections to each.
    package init(ports: [Int], connectionsPerNode: Int) {
        precondition(connectionsPerNode > 0 && !ports.isEmpty, "a pool needs servers and connections")
        lanes = ports.map(Lane.init)
        for lane in lanes {
            for i in 0..<connectionsPerNode {
                let thread = Thread { Self.serve(lane) }
                thread.name = "cab-simulate-\(lane.port)-\(i)"
                thread.start()
            }
        }
    }

    /// Posts `body` (a `POST /v1/driver/locations` JSON) with `token` to server `node`: the answer's status (0
    /// for no answer) and its `Retry-After`.
    package func upload(node: Int, token: String, body: [UInt8]) async -> (status: Int, retryAfterSeconds: Double?) {
        await withCheckedContinuation { continuation in
            lanes[node].submit(Job(token: token, body: body) { continuation.resume(returning: ($0, $1)) })
        }
    }

    /// One connection's thread: takes the lane's uploads in turn (`KeepAliveConnection` reconnects after a
    /// failure or a closed connection).
    private static func serve(_ lane: Lane) {
        var connection = KeepAliveConnection(port: lane.port)
        while true {
            let job = lane.next()
            let answer = connection.send(
                "POST", "/v1/driver/locations",
                headers: [("Authorization", "Bearer \(job.token)"), ("Content-Type", "application/json")],
                body: job.body)
            job.done(answer.status, answer.headers["retry-after"].flatMap(Double.init))
        }
    }
}

/// `LocationTransport` over a `KeepAlivePool`: the driver's batches as `CabAPIClient.upload` sends them, with
/// the same reading of the answer (429 waits, 400/413/422 are dropped, the rest retried).
package struct PooledTransport: LocationTransport {
    package let pool: KeepAlivePool
    package let node: Int
    package let token: String

    package func upload(_ fixes: [ReportedFix]) async -> UploadResult {
        guard let body = try? JSONEncoder().encode(["fixes": fixes]) else { return .rejected }
        let (status, retryAfter) = await pool.upload(node: node, token: token, body: Array(body))
        switch status {
        case 200..<300: return .accepted
        case 429: return .rateLimited(retryAfterSeconds: retryAfter ?? 5)
        case 400, 413, 422: return .rejected
        default: return .failed
        }
    }
}
