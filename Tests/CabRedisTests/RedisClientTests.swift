import CabTestSupport
import Foundation
import Synchronization
import Testing

@testable import CabRedis

/// The hiredis wrapper against a real `redis-server` started for each test (`RedisTestServer`).
@Suite struct RedisClientTests {
    @Test func parsesEndpoints() {
        #expect(
            RedisEndpoint(url: "redis://127.0.0.1:6380/2")
                == RedisEndpoint(address: .tcp(host: "127.0.0.1", port: 6380), database: 2))
        #expect(RedisEndpoint(url: "redis://cache") == RedisEndpoint(address: .tcp(host: "cache", port: 6379)))
        #expect(
            RedisEndpoint(url: "unix:///run/redis.sock?db=3")
                == RedisEndpoint(address: .unix(path: "/run/redis.sock"), database: 3))
        for bad in [
            "http://x", "redis://", "redis://h:0", "redis://h:99999", "redis://h/x", "unix://relative",
            "unix:///s?db=-1",
        ] {
            #expect(RedisEndpoint(url: bad) == nil, "\(bad)")
        }
    }

    @Test func argumentsAreBinarySafeAndServerErrorsLeaveTheConnectionUsable() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = try RedisConnection(#require(RedisEndpoint(url: server.url)))
        let hostile: [UInt8] = Array("a\r\n*3\r\n$3\r\nDEL".utf8) + [0, 255, 10]
        #expect(try redis.command("SET", "k", hostile) == .status("OK"))
        #expect(try redis.command("GET", "k") == .bulk(hostile))
        #expect(try redis.command("GET", "missing") == .null)
        guard case .error(let message) = try redis.command("LPUSH", "k", "x") else {
            Issue.record("LPUSH on a string should fail")
            return
        }
        #expect(message.hasPrefix("WRONGTYPE"))
        #expect(try redis.command("STRLEN", "k") == .integer(Int64(hostile.count)))
    }

    @Test func aPipelineSendsEverythingThenReadsInOrder() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let redis = try RedisConnection(#require(RedisEndpoint(url: server.url)))
        let replies = try redis.pipeline(
            Array(repeating: ["INCR", "n"], count: 1_000) + [["LPUSH", "n", "x"], ["GET", "n"]])
        #expect(replies.count == 1_002)
        #expect(replies.prefix(1_000).map(\.integer) == (1...1_000).map { Int64($0) })
        if case .error = replies[1_000] {} else { Issue.record("LPUSH should fail inside the pipeline") }
        #expect(replies[1_001] == .bulk(Array("1000".utf8)))
    }

    @Test func serverSideFunctionsRunAndTheirErrorsAreThrown() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let client = RedisClient(try #require(RedisEndpoint(url: server.url)))
        try client.loadFunctions(
            """
            #!lua name=cabtest
            redis.register_function('newest_wins', function(keys, args)
              local current = tonumber(redis.call('HGET', keys[1], 't') or '-1')
              local t = tonumber(args[1])
              if t == nil then return redis.error_reply('ERR t must be a number') end
              if t <= current then return 0 end
              redis.call('HSET', keys[1], 't', args[1], 'pos', args[2])
              return 1
            end)
            """)
        #expect(try client.call("newest_wins", keys: ["driver:1"], arguments: [1_000, "60.17,24.94"]) == .integer(1))
        #expect(try client.call("newest_wins", keys: ["driver:1"], arguments: [999, "old"]) == .integer(0))
        #expect(try client.command("HGET", "driver:1", "pos").string == "60.17,24.94")
        let failure = #expect(throws: RedisError.self) {
            try client.call("newest_wins", keys: ["driver:1"], arguments: ["soon", "x"])
        }
        #expect(failure?.message.contains("t must be a number") == true)
    }

    @Test func theClientReconnectsAndNoticesARestart() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let events = Recorded<RedisEvent>()
        let client = RedisClient(try #require(RedisEndpoint(url: server.url)), timeoutMilliseconds: 300) {
            events.append($0)
        }
        try client.command("SET", "k", "v")
        let before = try #require(client.runID)
        server.stopServer()
        #expect(throws: RedisError.self) { try client.command("GET", "k") }
        #expect(throws: RedisError.self) { try client.command("GET", "k") }  // still down: reported once
        try server.start()
        #expect(try client.command("GET", "k") == .null)  // a new, empty server
        let after = try #require(client.runID)
        #expect(after != before)
        let seen = events.values
        #expect(seen.count == 4, "\(seen)")
        #expect(seen.first == .connected(runID: before))
        if seen.count == 4 {
            if case .disconnected = seen[1] {} else { Issue.record("second event should be a disconnect: \(seen)") }
            #expect(seen[2] == .connected(runID: after))
            #expect(seen[3] == .restarted(previousRunID: before, runID: after))
        }
    }

    @Test func aPausedServerTimesOutInsteadOfHanging() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let client = RedisClient(try #require(RedisEndpoint(url: server.url)), timeoutMilliseconds: 200)
        try client.command("SET", "k", "v")
        server.pause()
        let started = ContinuousClock.now
        let error = #expect(throws: RedisError.self) { try client.command("GET", "k") }
        #expect(error?.isConnectionLost == true)
        #expect(ContinuousClock.now - started < .seconds(3))
        server.resume()
        #expect(try client.command("GET", "k") == .bulk(Array("v".utf8)))
    }

    @Test func theStreamReaderDeliversEverythingOnceAcrossARestart() throws {
        let server = try RedisTestServer()
        defer { server.stop() }
        let endpoint = try #require(RedisEndpoint(url: server.url))
        let writer = RedisClient(endpoint)
        try writer.command("XADD", "fixes", "*", "n", "0")  // before the reader: not delivered ("$")
        let received = Recorded<RedisStreamEntry>()
        let events = Recorded<RedisEvent>()
        let reader = RedisStreamReader(
            endpoint, streams: [(key: "fixes", after: "$")],
            configuration: .init(blockMilliseconds: 50, batchSize: 64), onEvent: { events.append($0) },
            handler: { batch in for e in batch { received.append(e) } })
        reader.start()
        defer { reader.stop() }
        try waitUntil { events.values.count >= 1 }
        for n in 1...300 { try writer.command("XADD", "fixes", "*", "n", n) }
        try waitUntil { received.values.count >= 300 }
        server.stopServer(kill: true)
        try waitUntil { events.values.contains { if case .disconnected = $0 { true } else { false } } }
        try server.start()
        for n in 301...310 {
            while (try? writer.command("XADD", "fixes", "*", "n", n)) == nil { usleep(10_000) }
        }
        try waitUntil { received.values.count >= 310 }
        let numbers = received.values.compactMap { $0.value("n").flatMap(Int.init) }
        #expect(numbers == Array(1...310))
        #expect(events.values.contains { if case .restarted = $0 { true } else { false } })
    }

    /// Polls `condition` every 10 ms for at most 10 s (the reader works on its own thread).
    private func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut() }
            usleep(10_000)
        }
    }
}

/// Values appended from other threads (event callbacks, the reader's thread).
final class Recorded<T: Sendable>: Sendable {
    private let storage = Mutex<[T]>([])
    func append(_ value: T) { storage.withLock { $0.append(value) } }
    var values: [T] { storage.withLock { $0 } }
}

/// A wait in a test ran past its deadline.
struct TimedOut: Error {}
