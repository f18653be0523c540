import CabHTTP
import CabTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@Suite struct HTTPServerShutdownTests {
    @Test func shutdownLetsTheSlowRequestFinishAndRefusesNewConnections() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = try TestServer { r in
            r.get("/slow") { _ in
                entered.signal()
                release.wait()
                return .text(String(repeating: "x", count: 100_000))
            }
        }
        let port = server.port
        let slowResponse = ThreadTask { () throws -> HTTPTestResponse in
            let connection = try HTTPTestConnection(port: port)
            try connection.sendRequest("GET", "/slow")
            return try connection.readResponse()
        }
        entered.wait()
        let stopped = ThreadTask { server.server.shutdown() }

        #expect(server.eventually { HTTPTestConnection.isRefused(port: port) }, "new connections still accepted")
        release.signal()
        let response = try slowResponse.value()
        try stopped.value()
        #expect(response.status == 200)
        #expect(response.body.count == 100_000)
        #expect(response.headers["connection"]?.lowercased() == "close")
        #expect(server.server.port == nil)
    }

    @Test func shutdownEndsOpenEventStreams() throws {
        let stream = EventStream(heartbeatInterval: nil)
        let server = try TestServer { r in r.get("/events") { _ in stream.response() } }
        let connection = try HTTPTestConnection(port: server.port)
        try connection.sendRequest("GET", "/events")
        #expect(try connection.readHead().status == 200)
        stream.send(data: "one")
        #expect(try connection.readChunk().map { String(decoding: $0, as: UTF8.self) } == "data: one\n\n")
        server.server.shutdown()
        #expect(try connection.readChunk() == nil)
        #expect(stream.isClosed)
    }

    @Test func startTwiceOrOnABusyPortFails() throws {
        let server = try TestServer { _ in }
        #expect(throws: HTTPServerError.self) { try server.server.start() }
        let clash = HTTPServer(configuration: .init(host: "127.0.0.1", port: server.port), router: Router())
        #expect(throws: HTTPServerError.self) { try clash.start() }
        let badHost = HTTPServer(configuration: .init(host: "not-an-address", port: 0), router: Router())
        #expect(throws: HTTPServerError.self) { try badHost.start() }
    }
}
