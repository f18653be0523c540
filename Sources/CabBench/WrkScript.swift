import CabLoopback

/// A Lua script for `wrk`: what each request is, plus a fixed prelude that counts non-2xx answers by status and
/// prints one parseable `CABWRK key=value ...` line from `done()` (with p50/p90/p99, which wrk's default output
/// lacks).
///
/// Hooks a specific script supplies, as Lua source:
/// - `cab_init()`: per thread, after `tid` (0-based thread number) and the counters are set;
/// - `request()`: wrk's own hook, returning `wrk.format(...)`;
/// - `cab_response(status, body)`: optional; may add to the global `extra` (summed over threads and reported).
///
/// Only scripts made with `inspectResponses` define wrk's `response()` hook (statuses counted one by one, bodies
/// handed to `cab_response`): the hook makes wrk parse every answer and call into Lua, which cost the load
/// generator about a third of its CPU on the two shared cores. Without it, non-2xx answers come from wrk's own
/// `summary.errors.status`, without the breakdown by status.
package struct WrkScript {
    /// The script's Lua source, prelude included.
    package let source: String

    /// A script from Lua defining `cab_init`, `request` and, with `inspectResponses`, optionally `cab_response`.
    package init(lua: String, inspectResponses: Bool = false) {
        source = Self.prelude + "\n" + (inspectResponses ? Self.responseHook + "\n" : "") + lua + "\n"
    }

    /// The same request every time (e.g. `GET /healthz`).
    package static func fixed(method: String, path: String, headers: [(String, String)] = [], body: String? = nil)
        -> WrkScript
    {
        WrkScript(
            lua: """
                function cab_init()
                  req = wrk.format(\(luaString(method)), \(luaString(path)), \(luaTable(headers)), \
                \(body.map(luaString) ?? "nil"))
                end
                function request() return req end
                """)
    }

    /// Rotates over `bearerTokens` and `bodies`, each request with a unique `Idempotency-Key` made of `keyPrefix`,
    /// the thread number and a per-thread counter (so a rerun with a fresh prefix never replays an old key).
    package static func uniqueKeyRequests(
        method: String, path: String, bearerTokens: [String], bodies: [String], keyPrefix: String
    ) -> WrkScript {
        precondition(!bearerTokens.isEmpty && !bodies.isEmpty, "rotating requests need a token and a body")
        return WrkScript(
            lua: """
                local tokens = \(luaArray(bearerTokens.map { "\r\nAuthorization: Bearer " + $0 }))
                local bodies = \(luaArray(bodies))
                local lengths = {}
                for i, body in ipairs(bodies) do lengths[i] = "\\r\\nContent-Length: " .. #body .. "\\r\\n\\r\\n" end
                function cab_init()
                  head = \(luaString(method)) .. " " .. \(luaString(path)) .. " HTTP/1.1\\r\\nHost: " ..
                    (wrk.headers["Host"] or (wrk.host .. ":" .. tostring(wrk.port))) ..
                    "\\r\\nContent-Type: application/json\\r\\nIdempotency-Key: " .. \(luaString(keyPrefix)) .. "-" .. tid .. "-"
                end
                -- Concatenated by hand: wrk.format with a headers table per request cost the load generator CPU
                -- that the server, on the same cores, then lacks.
                function request()
                  counter = counter + 1
                  local b = (counter * 7 + tid) % #bodies + 1
                  return head .. counter .. tokens[(counter + tid) % #tokens + 1] .. lengths[b] .. bodies[b]
                end
                """)
    }

    /// The fixed prelude: counters, `setup`, `init`, `response` and `done`.
    package static let prelude = """
        local threads = {}
        function setup(thread)
          thread:set("tid", #threads)
          table.insert(threads, thread)
        end
        function init(args)
          non2xx = 0
          extra = 0
          counter = 0
          statuses = {}
          cab_init()
        end
        function done(summary, latency, requests)
          local n, e, merged, parts = 0, 0, {}, {}
          for _, t in ipairs(threads) do
            n = n + t:get("non2xx")
            e = e + t:get("extra")
            for k, v in pairs(t:get("statuses")) do merged[k] = (merged[k] or 0) + v end
          end
          for k, v in pairs(merged) do table.insert(parts, k .. ":" .. v) end
          if not response then n = summary.errors.status end
          io.write(string.format("CABWRK requests=%.0f duration_us=%.0f p50_us=%.0f p90_us=%.0f p99_us=%.0f " ..
            "max_us=%.0f mean_us=%.1f non2xx=%.0f extra=%.0f err_connect=%.0f err_read=%.0f err_write=%.0f " ..
            "err_timeout=%.0f statuses=%s\\n",
            summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
            latency:percentile(99), latency.max, latency.mean, n, e, summary.errors.connect, summary.errors.read,
            summary.errors.write, summary.errors.timeout, table.concat(parts, ",")))
        end
        """

    /// wrk's `response()` hook: counts statuses and passes bodies to `cab_response`.
    package static let responseHook = """
        function response(status, headers, body)
          if status < 200 or status > 299 then
            non2xx = non2xx + 1
            local k = tostring(status)
            statuses[k] = (statuses[k] or 0) + 1
          end
          if cab_response then cab_response(status, body) end
        end
        """
}

/// `text` as a double-quoted Lua string literal.
package func luaString(_ text: String) -> String {
    var out = "\""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "\\"): out += "\\\\"
        case UInt8(ascii: "\""): out += "\\\""
        case 0x20..<0x7f: out.unicodeScalars.append(Unicode.Scalar(byte))
        default:  // a three-digit decimal escape, so a following digit cannot extend it
            let digits = String(byte)
            out += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
        }
    }
    return out + "\""
}

/// `items` as a Lua array constructor of strings.
package func luaArray(_ items: [String]) -> String {
    "{" + items.map(luaString).joined(separator: ",\n") + "}"
}

/// `pairs` as a Lua table of string keys to string values.
package func luaTable(_ pairs: [(String, String)]) -> String {
    "{" + pairs.map { "[\(luaString($0.0))] = \(luaString($0.1))" }.joined(separator: ", ") + "}"
}
