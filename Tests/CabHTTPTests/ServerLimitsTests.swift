import CabHTTP
import CabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One client cannot lock everyone out: read deadlines, a per-address connection cap, the descriptor limit, and
/// oversized request lines and headers answered at once with problem+json (the probe's findings 3 and 4).
/// Deadlines here are one second so that each case takes two or three seconds of real time.
@Suite(.serialized) struct ServerLimitsTests {
    static func server(perAddress: Int = 256) throws -> TestServer {
        try TestServer(
            configuration: HTTPServerConfiguration(
                workerThreads: 2, maxConnectionsPerAddress: perAddress, requestHeaderTimeout: .seconds(1),
                requestBodyTimeout: .seconds(1), deadlineSweepInterval: .milliseconds(100))
        ) { router in
            router.get("/hello") { _ in .text("hello") }
            router.post("/echo") { request in .bytes(request.body, contentType: "application/octet-stream") }
            router.get("/slow") { _ in
                Thread.sleep(forTimeInterval: 1.5)  // the handler's own time is not a read deadline
                return .text("slow")
            }
            router.get("/v1/track/{token}") { _ in .text("tracked") }
        }
    }

    func seconds(since start: ContinuousClock.Instant) -> Double {
        Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000
    }

    /// The probe: a header trickled one byte at a time was never cut off (20 of 20 still open after 90 s).
    @Test func aTrickledHeaderIsCutOffWhileOthersAreServed() throws {
        let s = try Self.server()
        let trickler = try HTTPTestConnection(port: s.port, timeoutSeconds: 5)
        try trickler.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        let start = ContinuousClock.now
        var cutAfter: Double?
        for byte in "X-Slow: one byte at a time, forever".utf8 {
            if try trickler.send([byte]) == 0 {
                cutAfter = seconds(since: start)
                break
            }
            #expect(try s.get("/hello").status == 200)  // everyone else is served meanwhile
            Thread.sleep(forTimeInterval: 0.25)
            if seconds(since: start) > 4 { break }
        }
        if cutAfter == nil {
            #expect(try trickler.readUntilClosed())
            cutAfter = seconds(since: start)
        }
        #expect(try #require(cutAfter) < 3.5, "cut off after \(cutAfter ?? -1) s")
        #expect(s.metrics.render().contains("http_connections_cut_off_total{phase=\"headers\"} 1"))
    }

    @Test func aTrickledBodyIsCutOff() throws {
        let s = try Self.server()
        let trickler = try HTTPTestConnection(port: s.port, timeoutSeconds: 5)
        try trickler.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n")
        let start = ContinuousClock.now
        while seconds(since: start) < 4, try trickler.send([0x61]) == 1 { Thread.sleep(forTimeInterval: 0.2) }
        #expect(try trickler.readUntilClosed())
        #expect(seconds(since: start) < 3.5)
        #expect(s.metrics.render().contains("http_connections_cut_off_total{phase=\"body\"} 1"))
    }

    @Test func promptKeepAliveRequestsAndSlowHandlersAreNotCutOff() throws {
        let s = try Self.server()
        do {
            let connection = try HTTPTestConnection(port: s.port)
            for _ in 0..<4 {
                try connection.sendRequest("GET", "/hello")
                #expect(try connection.readResponse().text == "hello")
                Thread.sleep(forTimeInterval: 0.5)  // idle between requests, within the 1 s header deadline
            }
        }  // closed here, before it idles past the deadline
        #expect(try s.get("/slow").text == "slow")  // 1.5 s in the handler
        #expect(!s.metrics.render().contains("http_connections_cut_off_total{"))
    }

    /// The probe: 1,224 idle connections from one address made ordinary requests fail.
    @Test func manyIdleConnectionsFromOneAddressDoNotLockOthersOut() throws {
        let s = try Self.server(perAddress: 20)
        var idle: [HTTPTestConnection] = []
        for _ in 0..<60 { idle.append(try HTTPTestConnection(port: s.port, timeoutSeconds: 3)) }
        // Past the cap, the server closes new connections from that address at once.
        var refused = 0
        for connection in idle.suffix(40) {
            try connection.sendRequest("GET", "/hello")
            if (try? connection.readResponse()) == nil { refused += 1 }
        }
        #expect(refused == 40)
        // Another client (another loopback address) is served.
        let other = try HTTPTestConnection(port: s.port, source: "127.0.0.2")
        try other.sendRequest("GET", "/hello")
        #expect(try other.readResponse().status == 200)
        idle.removeAll()
    }

    @Test func theDescriptorLimitIsRaisedToTheHardLimit() throws {
        let s = try Self.server()
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(limit.rlim_cur == limit.rlim_max)
        #expect(try s.get("/hello").status == 200)
    }

    /// The probe: about 500 query parameters were held ~60 s and closed unanswered.
    @Test(arguments: [100, 201, 500, 2_000, 4_000])
    func manyQueryParametersAreAnsweredAtOnce(count: Int) throws {
        let s = try Self.server()
        let query = (0..<count).map { "p\($0)=\($0)" }.joined(separator: "&")
        let start = ContinuousClock.now
        let connection = try HTTPTestConnection(port: s.port, timeoutSeconds: 5)
        try connection.sendRequest("GET", "/hello?" + (count == 4_000 ? String(repeating: "&", count: 4_000) : query))
        let answer = try connection.readResponse()
        #expect(seconds(since: start) < 2)
        if count <= 200 {
            #expect(answer.status == 200)
        } else {
            #expect(answer.status == 414)
            #expect(answer.headers["content-type"] == "application/problem+json")
            let detail = answer.jsonObject?["detail"] as? String ?? ""
            #expect(detail.contains("at most 200") || detail.contains("at most 16384"), "\(detail)")
        }
    }

    /// The probe: libmicrohttpd's own 414 and 431 were HTML without a content type.
    @Test func aLongURIAndLargeHeadersAreProblemJSON() throws {
        let s = try Self.server()
        let long = try s.get("/hello?x=" + String(repeating: "a", count: 40_000))
        #expect(long.status == 414 && long.headers["content-type"] == "application/problem+json")
        #expect((long.jsonObject?["detail"] as? String)?.contains("at most 16384") == true)
        let big = try s.get("/hello", headers: ["X-Big": String(repeating: "b", count: 40_000)])
        #expect(big.status == 431 && big.headers["content-type"] == "application/problem+json")
        #expect((big.jsonObject?["detail"] as? String)?.contains("at most 16384") == true)
        #expect(try s.get("/hello", headers: ["X-Fine": String(repeating: "c", count: 8_000)]).status == 200)
    }

    /// Every refusal the HTTP layer answers by itself carries its catalogued code and type (they were once made
    /// from the title, so a reworded title changed the code a client matches on).
    @Test func everyRefusalCarriesItsCataloguedCode() throws {
        let s = try Self.server()
        var answers: [(ProblemType, HTTPTestResponse)] = [
            (.notFound, try s.get("/nothing-here")),
            (.methodNotAllowed, try s.request("DELETE", "/hello")),
            (.uriTooLong, try s.get("/hello?x=" + String(repeating: "a", count: 20_000))),
            (.tooManyQueryParameters, try s.get("/hello?" + (0..<300).map { "p\($0)=1" }.joined(separator: "&"))),
            (.headersTooLarge, try s.get("/hello", headers: ["X-Big": String(repeating: "b", count: 20_000)])),
        ]
        let tooLarge = try HTTPTestConnection(port: s.port, timeoutSeconds: 5)
        _ = try tooLarge.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n")
        answers.append((.contentTooLarge, try tooLarge.readResponse()))
        let noHost = try HTTPTestConnection(port: s.port, timeoutSeconds: 5)
        _ = try noHost.send("GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n")
        answers.append((.badRequest, try noHost.readResponse()))
        for (problem, answer) in answers {
            #expect(answer.status == problem.status, "\(problem.code)")
            #expect(answer.headers["content-type"] == "application/problem+json", "\(problem.code)")
            #expect(answer.jsonObject?["code"] as? String == problem.code, "\(problem.code)")
            #expect(answer.jsonObject?["type"] as? String == problem.uri, "\(problem.code)")
            #expect(answer.jsonObject?["title"] as? String == problem.title, "\(problem.code)")
        }
    }

    /// Finding 6: share-link tokens reached the access log in the path.
    @Test func tokensInPathsNeverReachTheAccessLog() throws {
        let s = try Self.server()
        let secret = "tk_" + String(repeating: "s3cr3t", count: 6)
        #expect(try s.get("/v1/track/\(secret)").status == 200)
        #expect(try s.get("/hello").status == 200)
        let deadline = ContinuousClock.now + .seconds(2)
        while s.accessLog.count < 2 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(s.accessLog.count == 2)
        #expect(!s.accessLog.joined().contains("s3cr3t"))
        #expect(s.accessLog.contains { $0.contains(#""path":"/v1/track/{token}""#) })
        #expect(s.accessLog.contains { $0.contains(#""path":"/hello""#) })
    }
}
