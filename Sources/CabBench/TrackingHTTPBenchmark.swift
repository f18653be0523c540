import CabGeo
import CabLoopback
import Foundation

/// The HTTP halves of `cab bench tracking` (issue 6) against a `cab serve` child: single-fix
/// `POST /v1/driver/locations` requests/s over wrk with many drivers' tokens, and the fleet stream's SSE fan-out.
/// The in-process halves come from `CabTracking.TrackingBenchmark`; the `tracking` command joins both.
package enum TrackingHTTPBenchmark {
    /// What the ingest load measured.
    package struct IngestResult {
        package var wrk: WrkResult
        /// Fixes the server reported `accepted` (summed from the response bodies).
        package var acceptedFixes: Int
        package var drivers: Int
    }

    /// What the fan-out measured, with the ingest load that fed it.
    package struct FanOutResult {
        package var fanOut: SSEFanOut.Result
        package var publisher: WrkResult?
        /// Why the feeding load reported nothing.
        package var publisherError: String?
    }

    /// Registers `count` drivers through `POST /v1/drivers` (wrk, `connections` at a time) and returns their
    /// bearer tokens. Throws with what is missing when the endpoint is not there.
    package static func registerDrivers(
        server: LoopbackServer, count: Int, connections: Int = 16, timeoutSeconds: Int = 600
    ) throws(BenchError) -> [String] {
        let probe = try LoopbackHTTPClient(port: server.port).send(
            "POST", "/v1/drivers", json: ["name": "Bench Probe", "vehicle": "Bench car", "plate": "B-PROBE"])
        guard probe.status == 201 || probe.status == 200 else {
            throw BenchError(
                "driver endpoints not available (\(probe.status) from POST /v1/drivers: \(APIBenchmark.detail(probe)))")
        }
        var template = Array(temporaryPath("cab-drivers-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("cannot create a temporary directory") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = WrkScript(
            lua: """
                function cab_init()
                  out = io.open(\(luaString(directory)) .. "/tokens-" .. tid .. ".txt", "w")
                  out:setvbuf("line")
                end
                function request()
                  counter = counter + 1
                  local body = '{"name":"Bench Driver ' .. tid .. '-' .. counter .. '","vehicle":"Bench car",' ..
                    '"plate":"B-' .. tid .. '-' .. counter .. '"}'
                  return wrk.format("POST", "/v1/drivers", {["Content-Type"] = "application/json"}, body)
                end
                function cab_response(status, body)
                  if status == 201 or status == 200 then
                    local token = body:match('"token"%s*:%s*"([^"]+)"')
                    if token then out:write(token, "\\n") extra = extra + 1 end
                  end
                end
                """, inspectResponses: true)
        let wrk = WrkRunner(threads: 2, connections: connections, durationSeconds: timeoutSeconds)
        let running = try wrk.start(baseURL: server.baseURL, script: script)
        let deadline = monotonicSeconds() + Double(timeoutSeconds)
        while readTokens(directory).count < count && monotonicSeconds() < deadline { usleep(200_000) }
        running.interrupt()
        let result = try running.finish()
        let tokens = readTokens(directory)
        guard tokens.count >= count else {
            throw BenchError(
                "registered only \(tokens.count) of \(count) drivers (non-2xx \(result.non2xx): \(result.statusSummary))"
            )
        }
        return Array(tokens.prefix(count))
    }

    private static func readTokens(_ directory: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.sorted().flatMap { name -> [String] in
            let text = (try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)) ?? ""
            // A line still being written has no newline yet: keep complete lines only.
            return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1)
                .map(String.init)
        }
    }

    /// Creates a dispatcher with `cab admin create-dispatcher STORE NAME` (this executable; `store` is `["--data",
    /// DIR]` or `["--postgres", URL]`) and returns the token it prints.
    package static func createDispatcher(store: [String]) throws(BenchError) -> String {
        let child = try ChildProcess(
            executable: LoopbackServer.currentExecutable(),
            arguments: ["admin", "create-dispatcher"] + store + ["Bench Dispatcher"])
        let output = child.readAll().trimmingSpaces.split(separator: "\n").last.map(String.init) ?? ""
        let status = child.waitForExit()
        guard status == 0, !output.isEmpty else {
            throw BenchError("`cab admin create-dispatcher \(store.joined(separator: " "))` failed (exit \(status))")
        }
        return output
    }

    /// A wrk script posting one fix per request for drivers whose tokens are in `tokensFile` (one a line), each
    /// thread owning every `threads`-th driver so a driver's fixes leave in time order. Times come from the real
    /// clock in milliseconds (LuaJIT FFI `clock_gettime`), strictly increasing per driver; positions start spread
    /// within `spanDegrees` of `centre` and move east at 5 m/s, so every fix passes the server's speed rule.
    /// With `delayMilliseconds`, each connection waits that long between requests (wrk's `delay()`), so the load
    /// runs at about `connections × 1000 / delayMilliseconds` requests/s.
    package static func ingestScript(
        tokensFile: String, threads: Int, centre: Coordinate, spanDegrees: Double, delayMilliseconds: Int? = nil
    ) -> WrkScript {
        let metresPerDegreeLon = 111_320 * max(0.1, cos(centre.latitude * .pi / 180))
        let delay = delayMilliseconds.map { "\nfunction delay() return \($0) end\n" } ?? ""
        return WrkScript(
            lua: """
                local ffi = require("ffi")
                ffi.cdef[[
                typedef struct { long tv_sec; long tv_nsec; } cab_timespec;
                int clock_gettime(int clk, cab_timespec *tp);
                ]]
                local ts = ffi.new("cab_timespec")
                local function now_ms()
                  ffi.C.clock_gettime(0, ts)
                  return tonumber(ts.tv_sec) * 1000 + math.floor(tonumber(ts.tv_nsec) / 1000000)
                end
                function cab_init()
                  mine, latText, lon, last, seq = {}, {}, {}, {}, {}
                  local i = 0
                  for line in io.lines(\(luaString(tokensFile))) do
                    if i % \(max(1, threads)) == tid then
                      table.insert(mine, "\\r\\nAuthorization: Bearer " .. line)
                      local k = #mine
                      latText[k] = string.format("%.7f",
                        \(centre.latitude) + (((i * 7919) % 1000) / 1000 - 0.5) * \(spanDegrees))
                      lon[k] = \(centre.longitude) + (((i * 104729) % 1000) / 1000 - 0.5) * \(spanDegrees)
                      last[k] = 0
                      seq[k] = 0
                    end
                    i = i + 1
                  end
                  t0 = now_ms()
                  nextdriver = 0
                  lastsecond, datetime = -1, ""
                  millis = {}
                  for m = 0, 999 do millis[m] = string.format(".%03dZ", m) end
                  head = "POST /v1/driver/locations HTTP/1.1\\r\\nHost: " ..
                    (wrk.headers["Host"] or (wrk.host .. ":" .. tostring(wrk.port)))
                end
                -- The request is concatenated by hand (wrk.format and string.format per field cost the load
                -- generator CPU that the server, on the same cores, then lacks).
                function request()
                  nextdriver = nextdriver % #mine + 1
                  local k = nextdriver
                  local t = now_ms()
                  if t <= last[k] then t = last[k] + 1 end
                  last[k] = t
                  seq[k] = seq[k] + 1
                  local second = math.floor(t / 1000)
                  if second ~= lastsecond then
                    lastsecond, datetime = second, os.date("!%Y-%m-%dT%H:%M:%S", second)
                  end
                  local east = lon[k] + (t - t0) / 1000 * 5 / \(metresPerDegreeLon)
                  local body = '{"fixes":[{"lat":' .. latText[k] .. ',"lon":' .. string.format("%.7f", east) ..
                    ',"time":"' .. datetime .. millis[t % 1000] .. '","accuracy":5,"speed":5,"heading":90,"seq":' ..
                    seq[k] .. '}]}'
                  return head .. mine[k] .. "\\r\\nContent-Type: application/json\\r\\nContent-Length: " .. #body ..
                    "\\r\\n\\r\\n" .. body
                end
                """ + delay)
    }

    /// Writes `tokens` to a temporary file for `ingestScript`; the caller removes it.
    package static func writeTokens(_ tokens: [String]) throws(BenchError) -> String {
        let path = temporaryPath("cab-tokens-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt")
        guard FileManager.default.createFile(atPath: path, contents: Data((tokens.joined(separator: "\n") + "\n").utf8))
        else { throw BenchError("cannot write \(path)") }
        return path
    }

    /// Single-fix ingest requests/s: wrk with `wrk.connections` connections, each request a fix for the next
    /// driver. Use at least as many drivers as requests per second you expect: the server's per-driver rate limit
    /// (1 batch/s after a burst of 10 by default) answers 429 beyond that.
    package static func measureIngest(
        server: LoopbackServer, tokens: [String], centre: Coordinate, spanDegrees: Double = 0.05, wrk: WrkRunner
    ) throws(BenchError) -> IngestResult {
        let file = try writeTokens(tokens)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let script = ingestScript(tokensFile: file, threads: wrk.threads, centre: centre, spanDegrees: spanDegrees)
        let before = acceptedFixes(server)
        let result = try wrk.run(baseURL: server.baseURL, script: script)
        return IngestResult(wrk: result, acceptedFixes: acceptedFixes(server) - before, drivers: tokens.count)
    }

    /// The server's `tracking_fixes_accepted_total` (from `/metrics`; 0 when it cannot be read). Read from the
    /// server rather than from the answers, so that wrk need not hand every answer to Lua.
    package static func acceptedFixes(_ server: LoopbackServer) -> Int {
        guard let response = try? LoopbackHTTPClient(port: server.port).send("GET", "/metrics") else { return 0 }
        let text = String(decoding: response.body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("tracking_fixes_accepted_total ") {
            return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
        }
        return 0
    }

    /// Opens `clients` fleet streams (`GET /v1/fleet/stream` as a dispatcher), then feeds positions with a light,
    /// paced ingest load (`fixesPerSecond` over `publisherConnections` connections, spread over `tokens`, so no
    /// driver comes near its rate limit) while measuring events/s and delivery latency from each event's `time`
    /// (the tick that published it). Every client gets every fix, so events/s ≈ fixes/s × clients.
    package static func measureFleetFanOut(
        server: LoopbackServer, dispatcherToken: String, tokens: [String], centre: Coordinate, clients: Int,
        seconds: Int, fixesPerSecond: Int, publisherConnections: Int = 4, settleSeconds: Double = 2.5,
        path: String = "/v1/fleet/stream"
    ) throws(BenchError) -> FanOutResult {
        let fanOut = SSEFanOut(
            configuration: .init(
                port: server.port, path: path, headers: [("Authorization", "Bearer \(dispatcherToken)")],
                clients: clients))
        // Positions the ingest load published in its last second go out at the next tick (1 s): open the streams
        // after it, or 5,000 clients each get thousands of stale events and the window measures that backlog.
        usleep(UInt32(settleSeconds * 1_000_000))
        fanOut.connect()
        defer { fanOut.closeAll() }
        _ = fanOut.measure(seconds: 1)  // anything still in flight, unmeasured
        let file = try writeTokens(tokens)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let wrk = WrkRunner(threads: 1, connections: publisherConnections, durationSeconds: seconds + 5)
        let publisher = try wrk.start(
            baseURL: server.baseURL,
            script: ingestScript(
                tokensFile: file, threads: 1, centre: centre, spanDegrees: 0.05,
                delayMilliseconds: max(1, publisherConnections * 1000 / max(1, fixesPerSecond))))
        let result = fanOut.measure(seconds: Double(seconds))
        publisher.interrupt()
        do {
            return FanOutResult(fanOut: result, publisher: try publisher.finish())
        } catch {
            return FanOutResult(fanOut: result, publisher: nil, publisherError: error.message)
        }
    }
}
