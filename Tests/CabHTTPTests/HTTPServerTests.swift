import CabHTTP
import CabTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct HTTPServerTests {
    struct Echo: Codable {
        var name: String
        var count: Int
    }

    let server: TestServer

    init() throws {
        server = try TestServer(configuration: HTTPServerConfiguration(maxBodyBytes: 1024)) { r in
            r.get("/v1/bookings/{id}") { req in .text("booking \(req.pathParameters["id"] ?? "?")") }
            r.get("/v1/bookings/mine") { _ in .text("mine") }
            r.get("/v1/search") { req in .text("q=\(req.query["q"] ?? "-") k=\(req.query["k"] ?? "-")") }
            r.post("/v1/echo") { req in
                let value = try req.decodeJSON(Echo.self)
                return .json(Echo(name: value.name, count: value.count + 1), status: 201)
            }
            r.post("/v1/size") { req in .text("\(req.body.count)") }
            r.get("/boom") { _ in
                struct Oops: Error {}
                throw Oops()
            }
            r.get("/teapot") { _ in
                throw HTTPError(status: 418, title: "Teapot", detail: "short and stout", code: "teapot")
            }
            r.get("/headers") { req in .text(req.header("x-thing") ?? "none") }
        }
    }

    @Test func routesWithPathParametersOverTheWire() throws {
        let one = try server.get("/v1/bookings/b_42")
        #expect(one.status == 200)
        #expect(one.text == "booking b_42")
        #expect(try server.get("/v1/bookings/mine").text == "mine")
        #expect(try server.get("/v1/bookings/caf%C3%A9").text == "booking café")
    }

    @Test func queryStringIsPercentDecoded() throws {
        let response = try server.get("/v1/search?q=K%C3%A4pyl%C3%A4+station&k=3&k=4")
        #expect(response.text == "q=Käpylä station k=3")
    }

    @Test func jsonBodyRoundTrip() throws {
        let response = try server.request("POST", "/v1/echo", body: Array(#"{"name":"x","count":1}"#.utf8))
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.text == #"{"count":2,"name":"x"}"#)
    }

    @Test func malformedJSONIsProblem400NamingTheField() throws {
        let response = try server.request("POST", "/v1/echo", body: Array(#"{"name":"x"}"#.utf8))
        #expect(response.status == 400)
        #expect(response.headers["content-type"] == "application/problem+json")
        let problem = try #require(response.jsonObject)
        #expect(problem["status"] as? Int == 400)
        #expect((problem["detail"] as? String)?.contains("count") == true)
    }

    @Test func unknownPathIs404Problem() throws {
        let response = try server.get("/nowhere")
        #expect(response.status == 404)
        #expect(response.headers["content-type"] == "application/problem+json")
        let problem = try #require(response.jsonObject)
        #expect(problem["title"] as? String == "Not Found")
        // issue 14: a type URI per problem (was about:blank)
        #expect(problem["type"] as? String == "/problems/not_found")
        #expect(problem["request_id"] as? String == response.headers["x-request-id"])
    }

    @Test func wrongMethodIs405WithAllow() throws {
        let response = try server.request("DELETE", "/v1/echo")
        #expect(response.status == 405)
        #expect(response.headers["allow"] == "POST")
        #expect(response.jsonObject?["status"] as? Int == 405)
    }

    @Test func thrownHTTPErrorIsItsProblem() throws {
        let response = try server.get("/teapot")
        #expect(response.status == 418)
        #expect(response.jsonObject?["detail"] as? String == "short and stout")
    }

    @Test func otherErrorsAreGeneric500AndLogged() throws {
        let response = try server.get("/boom")
        #expect(response.status == 500)
        let problem = try #require(response.jsonObject)
        let id = try #require(response.headers["x-request-id"])
        #expect(problem["request_id"] as? String == id)
        #expect((problem["detail"] as? String)?.contains("Oops") == false)
        #expect(server.errorLog.contains { $0.contains(id) && $0.contains("Oops") })
    }

    @Test func requestIDIsEchoedOrGenerated() throws {
        let echoed = try server.get("/healthz", headers: ["X-Request-Id": "abc-123.x"])
        #expect(echoed.headers["x-request-id"] == "abc-123.x")
        let replaced = try server.get("/healthz", headers: ["X-Request-Id": "bad id <script>"])
        let generated = try #require(replaced.headers["x-request-id"])
        #expect(generated != "bad id <script>")
        #expect(generated.count == 16)
        let other = try server.get("/healthz")
        #expect(other.headers["x-request-id"] != generated)
    }

    @Test func healthz() throws {
        let response = try server.get("/healthz")
        #expect(response.status == 200)
        #expect(response.text == #"{"status":"ok"}"#)
    }

    @Test func keepAliveServesTwoRequestsOnOneSocket() throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.sendRequest("GET", "/v1/bookings/a")
        let first = try connection.readResponse()
        try connection.sendRequest("POST", "/v1/size", body: [1, 2, 3])
        let second = try connection.readResponse()
        #expect(first.text == "booking a")
        #expect(second.text == "3")
        // Pipelined: two requests written at once, two answers in order.
        try connection.send(
            "GET /v1/bookings/p1 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/bookings/p2 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().text == "booking p1")
        #expect(try connection.readResponse().text == "booking p2")
    }

    @Test func hundredConcurrentRequests() throws {
        let port = server.port
        let bodies = try ThreadTask.all(100) { i in
            let connection = try HTTPTestConnection(port: port)
            try connection.sendRequest("GET", "/v1/bookings/\(i)")
            return try connection.readResponse().text
        }
        #expect(bodies == (0..<100).map { "booking \($0)" })
    }

    @Test func bodyWithinLimitIsRead() throws {
        #expect(try server.request("POST", "/v1/size", body: Array(repeating: 7, count: 1024)).text == "1024")
    }

    @Test func announcedOversizedBodyIsRefusedWithoutReadingIt() throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.send("POST /v1/size HTTP/1.1\r\nHost: x\r\nContent-Length: 10485760\r\n\r\n")
        try connection.send(Array(repeating: 0x41, count: 4096))
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/problem+json")
        #expect(response.jsonObject?["status"] as? Int == 413)
        // The server closes instead of reading the other 10 MB: sending all of it fails before the end.
        let sent = try connection.send(Array(repeating: 0x41, count: 10 << 20))
        #expect(sent < 10 << 20)
    }

    @Test func chunkedBodyGrowingPastLimitIsCutOff() throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.send("POST /v1/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = Array("400\r\n".utf8) + Array(repeating: 0x42, count: 1024) + Array("\r\n".utf8)
        try connection.send(chunk + chunk + Array("0\r\n\r\n".utf8))
        let response = try connection.readResponse()
        #expect(response.status == 413)
    }

    @Test func endlessChunkedBodyIsCutOffByClosing() throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.send("POST /v1/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = Array("400\r\n".utf8) + Array(repeating: 0x42, count: 1024) + Array("\r\n".utf8)
        var sent = 0
        for _ in 0..<(10 << 10) {
            let count = try connection.send(chunk)
            sent += count
            if count < chunk.count { break }
        }
        #expect(sent < (10 << 10) * chunk.count)
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET /x HTTP/9.9\r\nHost: x\r\n\r\n",
        "GET /healthz HTTP/1.1\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
        "POST /v1/size HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n",
        "POST /v1/size HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
    ])
    func malformedRequestsGet4xxOrClose(raw: String) throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.send(raw)
        if let response = try? connection.readResponse() {
            #expect((400..<600).contains(response.status), "\(raw.debugDescription) got \(response.status)")
        }
        // Whatever the answer, the server still serves others.
        #expect(try server.get("/healthz").status == 200)
    }

    @Test func headersReachTheHandler() throws {
        #expect(try server.get("/headers", headers: ["X-Thing": "yes"]).text == "yes")
    }

    @Test func headIsAnsweredWithoutBody() throws {
        let connection = try HTTPTestConnection(port: server.port)
        try connection.sendRequest("HEAD", "/v1/bookings/h")
        let head = try connection.readResponse(method: "HEAD")
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == "9")
        try connection.sendRequest("GET", "/v1/bookings/after")
        #expect(try connection.readResponse().text == "booking after")
    }
}
