import CabClient
import CabLoopback
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One server-sent event stream on 127.0.0.1 read by a thread of its own, every event kept with the monotonic
/// second it arrived (`cab bench cluster` times a fix from its POST to a rider's stream). Events are kept until
/// taken; at most `capacity` are held (the oldest dropped), so a reader that stops taking does not grow memory.
package final class StreamFollower: Sendable {
    /// An event and when it was read.
    package struct Arrival: Sendable {
        package var event: ServerSentEvent
        package var seconds: Double
    }

    private let fd: Int32
    private let state: Mutex<(arrivals: [Arrival], status: Int?, closed: String?)>
    private let finished = DispatchSemaphore(value: 0)
    private let capacity: Int

    /// Opens `GET path` on `port` with `headers` and starts reading; throws when it cannot connect or send.
    package init(port: Int, path: String, headers: [(String, String)], capacity: Int = 10_000) throws(BenchError) {
        self.capacity = capacity
        state = Mutex(([], nil, nil))
        let socket: Int32
        do {
            socket = try LoopbackSocket.connect(port: port, nonBlocking: false)
        } catch {
            throw BenchError("GET \(path) on port \(port): \(error.message)")
        }
        do {
            try LoopbackSocket.writeAll(
                socket,
                LoopbackSocket.request(
                    method: "GET", path: path, headers: [("Accept", "text/event-stream")] + headers, keepAlive: true))
        } catch {
            close(socket)
            throw BenchError("GET \(path) on port \(port): \(error.message)")
        }
        fd = socket
        Thread.detachNewThread { [self] in
            self.read(socket)
            self.finished.signal()
        }
    }

    /// The response's status once its head arrived.
    package var status: Int? { state.withLock { $0.status } }

    /// Why the stream ended (closed by the server, a read error), nil while it is open.
    package var closedReason: String? { state.withLock { $0.closed } }

    /// The first event `matching` that arrived, waiting up to `timeoutSeconds`; the events before it and it are
    /// taken, later ones stay. Nil when none came in time or the stream closed.
    package func next(timeoutSeconds: Double, matching: (ServerSentEvent) -> Bool) -> Arrival? {
        let deadline = monotonicSeconds() + timeoutSeconds
        while true {
            let (found, closed) = state.withLock { s -> (Arrival?, Bool) in
                guard let index = s.arrivals.firstIndex(where: { matching($0.event) }) else {
                    s.arrivals.removeAll()
                    return (nil, s.closed != nil)
                }
                let arrival = s.arrivals[index]
                s.arrivals.removeFirst(index + 1)
                return (arrival, false)
            }
            if let found { return found }
            if closed || monotonicSeconds() > deadline { return nil }
            usleep(1_000)
        }
    }

    /// Closes the connection and waits for the reading thread to end.
    package func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        finished.wait()
        close(fd)
    }

    private func read(_ fd: Int32) {
        var decoder = HTTPResponseDecoder()
        var parser = ServerSentEventParser()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = n == 0 ? "closed by the server" : "recv: \(String(cString: strerror(errno)))"
                state.withLock { $0.closed = reason }
                return
            }
            let seconds = monotonicSeconds()
            do {
                let body = try decoder.feed(buffer[0..<n])
                let events = parser.feed(body)
                let status = decoder.status
                state.withLock { s in
                    s.status = status
                    s.arrivals += events.map { Arrival(event: $0, seconds: seconds) }
                    if s.arrivals.count > capacity { s.arrivals.removeFirst(s.arrivals.count - capacity) }
                }
            } catch {
                state.withLock { $0.closed = error.message }
                return
            }
        }
    }
}
