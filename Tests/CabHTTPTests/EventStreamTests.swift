import CabHTTP
import CabTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct EventStreamTests {
    /// Pulls what the stream has, as text.
    private func drain(_ stream: EventStream) -> String {
        var text = ""
        while case .data(let bytes) = stream.next(waker: {}) { text += String(decoding: bytes, as: UTF8.self) }
        return text
    }

    @Test func formatsEventsAndComments() {
        let stream = EventStream(heartbeatInterval: nil)
        stream.send(event: "position", id: "7", data: "{\"a\":1}\nsecond line")
        stream.comment("keep\nalive")
        #expect(drain(stream) == "event: position\nid: 7\ndata: {\"a\":1}\ndata: second line\n\n: keep alive\n\n")
    }

    @Test func pendingThenWakerFiresOnSend() {
        let stream = EventStream(heartbeatInterval: nil)
        let woken = Mutex(0)
        #expect(stream.next(waker: { woken.withLock { $0 += 1 } }) == .pending)
        stream.send(data: "x")
        #expect(woken.withLock { $0 } == 1)
        stream.finish()
        #expect(drain(stream) == "data: x\n\n")
        #expect(stream.next(waker: {}) == .end)
    }

    @Test func slowReaderLosesOldestEventsNotMemory() {
        let stream = EventStream(capacity: 10, heartbeatInterval: nil)
        for i in 0..<1000 { stream.send(id: String(i), data: "event \(i)") }
        #expect(stream.queuedEvents == 10)
        #expect(stream.droppedEvents == 990)
        #expect(stream.queuedBytes < 10 * 40)
        let text = drain(stream)
        #expect(text.hasPrefix("id: 990\n"))
        #expect(text.hasSuffix("data: event 999\n\n"))
    }

    @Test func closeRunsOnCloseActionsOnce() {
        let stream = EventStream(heartbeatInterval: nil)
        let closed = Mutex(0)
        stream.onClose { closed.withLock { $0 += 1 } }
        stream.close()
        stream.close()
        stream.send(data: "ignored")
        #expect(closed.withLock { $0 } == 1)
        #expect(stream.next(waker: {}) == .end)
        stream.onClose { closed.withLock { $0 += 1 } }
        #expect(closed.withLock { $0 } == 2)
    }
}

@Suite struct EventStreamServerTests {
    final class Streams: Sendable {
        let made = Mutex<[EventStream]>([])
        let capacity: Int
        let heartbeat: Duration?
        init(capacity: Int = 256, heartbeat: Duration? = nil) {
            self.capacity = capacity
            self.heartbeat = heartbeat
        }
        func make() -> EventStream {
            let stream = EventStream(capacity: capacity, heartbeatInterval: heartbeat)
            made.withLock { $0.append(stream) }
            return stream
        }
        var last: EventStream? { made.withLock { $0.last } }
    }

    private func open(_ server: TestServer, headers: [String: String] = [:]) throws -> HTTPTestConnection {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.sendRequest("GET", "/events", headers: headers)
        let head = try connection.readHead()
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        #expect(head.headers["cache-control"] == "no-cache")
        return connection
    }

    /// Reads chunks until `text` holds `count` complete events.
    private func readEvents(_ connection: HTTPTestConnection, count: Int) throws -> [String] {
        var text = ""
        while text.components(separatedBy: "\n\n").count - 1 < count {
            guard let chunk = try connection.readChunk() else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text.components(separatedBy: "\n\n").dropLast()
    }

    @Test func deliversEventsInOrderAndEndsOnFinish() throws {
        let streams = Streams()
        let server = try TestServer { r in
            r.get("/events") { req in
                let stream = streams.make()
                stream.send(event: "hello", data: "resume after \(req.header("Last-Event-ID") ?? "none")")
                return stream.response()
            }
        }
        let connection = try open(server, headers: ["Last-Event-ID": "41"])
        let stream = try #require(streams.last)
        #expect(try readEvents(connection, count: 1) == ["event: hello\ndata: resume after 41"])
        // Sent while the connection is parked, from another thread.
        try ThreadTask { for i in 1...200 { stream.send(id: String(i), data: "n\(i)") } }.value()
        let events = try readEvents(connection, count: 200)
        #expect(events == (1...200).map { "id: \($0)\ndata: n\($0)" })
        stream.finish()
        #expect(try connection.readChunk() == nil)
        #expect(server.eventually { stream.isClosed })
        // The keep-alive connection still works after the stream.
        try connection.sendRequest("GET", "/healthz")
        #expect(try connection.readResponse().status == 200)
    }

    @Test func heartbeatCommentsArriveFromTheTimer() throws {
        let streams = Streams(heartbeat: .milliseconds(20))
        let server = try TestServer { r in r.get("/events") { _ in streams.make().response() } }
        let connection = try open(server)
        let chunk = try #require(try connection.readChunk())
        #expect(String(decoding: chunk, as: UTF8.self).hasPrefix(": heartbeat\n\n"))
    }

    @Test func clientThatNeverReadsDoesNotGrowServerMemory() throws {
        let streams = Streams(capacity: 64)
        let server = try TestServer { r in r.get("/events") { _ in streams.make().response() } }
        let connection = try open(server)
        let stream = try #require(streams.last)
        let payload = String(repeating: "p", count: 1000)
        // Far more than socket buffers hold (~20 MB); the client reads nothing.
        for i in 0..<20_000 { stream.send(id: String(i), data: payload) }
        #expect(stream.queuedEvents <= 64)
        #expect(stream.queuedBytes <= 64 * 1100)
        #expect(stream.droppedEvents > 10_000)
        // Once the client reads, it gets the newest events, in order, and the stream ends cleanly.
        stream.finish()
        var last = ""
        while let chunk = try connection.readChunk() { last = String(decoding: chunk, as: UTF8.self) }
        #expect(last.contains("id: 19999\n"))
        withExtendedLifetime(connection) {}
    }

    @Test func clientDisconnectClosesTheStream() throws {
        let streams = Streams()
        let server = try TestServer { r in r.get("/events") { _ in streams.make().response() } }
        var connection: HTTPTestConnection? = try open(server)
        let stream = try #require(streams.last)
        stream.send(data: "first")
        _ = try connection?.readChunk()
        connection = nil  // closes the socket
        // A parked connection learns of the disconnect on its next write (a heartbeat or an event).
        #expect(
            server.eventually {
                stream.comment("probe")
                return stream.isClosed
            })
        #expect(server.eventually { server.accessLog.contains { $0.contains("\"route\":\"/events\"") } })
    }
}
