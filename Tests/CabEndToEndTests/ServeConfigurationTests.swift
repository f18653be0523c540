import CabTestSupport
import Foundation
import Testing

/// `cab serve`'s one configuration (issue 14 part 8): a JSON file, `CAB_…` variables over it, flags over those,
/// checked at start-up (exit 64 naming the key), and `--print-config` showing what is in force.
@Suite struct ServeConfigurationTests {
    /// A configuration file holding `json`.
    static func file(_ json: String) throws -> URL {
        let url = try TestData.temporaryDirectory("config").appendingPathComponent("cab.json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// `cab serve --print-config ...` as a JSON object.
    static func printedConfig(_ arguments: [String], environment: [String: String] = [:]) throws -> [String: Any] {
        let result = try CabProcess.run(["serve", "--print-config"] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    }

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFile() throws {
        let config = try Self.file(
            """
            {"dispatch": {"batch_size": 5, "search_radii_m": [1000, 3000]},
             "trip": {"pickup_overdue_seconds": 900},
             "tracking": {"history": {"linger_ms": 700}}}
            """)
        let printed = try Self.printedConfig(
            ["--config", config.path, "--pickup-overdue", "1200"],
            environment: ["CAB_DISPATCH_BATCH_SIZE": "7", "CAB_TRIP_PICKUP_OVERDUE_SECONDS": "800"])
        let dispatch = try #require(printed["dispatch"] as? [String: Any])
        let trip = try #require(printed["trip"] as? [String: Any])
        let history = try #require((printed["tracking"] as? [String: Any])?["history"] as? [String: Any])
        #expect(dispatch["batch_size"] as? Int == 7)  // the environment over the file
        #expect(dispatch["search_radii_m"] as? [Int] == [1000, 3000])  // the file over the default
        #expect(trip["pickup_overdue_seconds"] as? Int == 1200)  // the flag over the environment and the file
        #expect(history["linger_ms"] as? Int == 700)
        #expect(dispatch["maximum_batches"] as? Int == 6)  // untouched keys keep today's defaults
        #expect((printed["http"] as? [String: Any])?["port"] as? Int == 8080)
    }

    @Test func printedConfigurationIsAcceptedBack() throws {
        let first = try CabProcess.run(
            ["serve", "--print-config", "--port", "9123", "--arrival-radius", "90.5"],
            environment: ["CAB_TRACKING_INGEST_RATE_LIMIT_BURST": "4"])
        #expect(first.status == 0, "\(first.standardError)")
        let config = try Self.file(first.standardOutput)
        let again = try CabProcess.run(["serve", "--print-config", "--config", config.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput == first.standardOutput)
        #expect(first.standardOutput.contains("\"arrival_radius_m\": 90.5"))
    }

    @Test(arguments: [
        (#"{"dispatch": {"batch_size": 0}}"#, "dispatch.batch_size: must be between 1 and 50"),
        (#"{"dispatch": {"batch_size": 2.5}}"#, "dispatch.batch_size: must be between 1 and 50"),
        (#"{"dispatch": {"search_radii_m": [4000, 2000]}}"#, "dispatch.search_radii_m: must be"),
        (#"{"http": {"port": "8080"}}"#, "http.port: must be between 0 and 65535"),
        (#"{"log_level": "loud"}"#, "log_level: must be one of trace, debug"),
        (#"{"dispatch": {"batchsize": 3}}"#, "dispatch.batchsize: unknown key"),
        (#"{"dispatch": 3}"#, "dispatch: must be an object"),
        (#"{"colour": "red"}"#, "colour: unknown key"),
        (#"{"http": {"max_uri_bytes": 200000}}"#, "http.connection_memory_bytes: must be at least"),
        (#"{"dispatch": {"#, "is not valid JSON"),
    ])
    func aBadOrUnknownKeyStopsStartUpNamingIt(_ json: String, _ message: String) throws {
        let config = try Self.file(json)
        let result = try CabProcess.run(["serve", "--config", config.path, "--port", "0"])
        #expect(result.status == 64)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "it stops before listening")
    }

    @Test func aBadEnvironmentValueOrFlagIsNamed() throws {
        let env = try CabProcess.run(["serve", "--print-config"], environment: ["CAB_HTTP_THREADS": "many"])
        #expect(env.status == 64)
        #expect(
            env.standardError.contains("http.threads") && env.standardError.contains("CAB_HTTP_THREADS"),
            "\(env.standardError)")
        let flag = try CabProcess.run(["serve", "--print-config", "--pickup-overdue", "5"])
        #expect(flag.status == 64)
        #expect(
            flag.standardError.contains("trip.pickup_overdue_seconds: must be between 30 and 86400")
                && flag.standardError.contains("--pickup-overdue"), "\(flag.standardError)")
        let missing = try CabProcess.run(["serve", "--config", "/nonexistent/cab.json"])
        #expect(missing.status == 64 && missing.standardError.contains("/nonexistent/cab.json"))
    }

    /// The setting reaches the component: a driver's location batches over HTTP, with today's rate limit (a burst
    /// of 10) and with `tracking.ingest.rate_limit_burst: 1` from the file.
    @Test func theConfigurationFileAppliesToTheRunningServer() throws {
        func secondBatchStatus(_ extra: [String]) throws -> Int {
            let server = try ServerProcess(dataDirectory: try ImportedMap.freshCopy(), extraArguments: extra)
            defer { server.stop() }
            let signUp = try server.request(
                "POST", "/v1/drivers", json: ["name": "Kalle", "vehicle": "car", "plate": "ABC-1"])
            let token = try #require(signUp.jsonObject?["token"] as? String)
            var statuses: [Int] = []
            for second in 0..<2 {
                let time = ISO8601DateFormatter().string(from: Date().addingTimeInterval(Double(second) - 2))
                let fix: [String: Any] = [
                    "lat": 60.1699, "lon": 24.9384 + Double(second) * 0.0001, "time": time, "accuracy": 5,
                ]
                statuses.append(
                    try server.request(
                        "POST", "/v1/driver/locations", json: ["fixes": [fix]],
                        headers: ["Authorization": "Bearer \(token)"]
                    ).status)
            }
            #expect(statuses[0] == 200, "the first batch is always accepted")
            return statuses[1]
        }
        #expect(try secondBatchStatus([]) == 200)
        let config = try Self.file(
            #"{"tracking": {"ingest": {"rate_limit_burst": 1, "rate_limit_batches_per_second": 0.001}}}"#)
        #expect(try secondBatchStatus(["--config", config.path]) == 429)
    }

    @Test func docsListEveryKey() throws {
        let printed = try Self.printedConfig([])
        func keys(_ object: [String: Any], _ prefix: String) -> [String] {
            object.flatMap { key, value in
                (value as? [String: Any]).map { keys($0, prefix + key + ".") } ?? [prefix + key]
            }
        }
        let all = keys(printed, "")
        #expect(all.count > 40)
        let docs = try String(
            contentsOf: TestData.repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let missing = all.filter { !docs.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/configuration.md does not list \(missing)")
        // Each row as the executable describes it (default, variable, flag, meaning), not an older copy.
        let reference = try CabProcess.run(["serve", "--config-reference"])
        let rows = reference.standardOutput.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == all.count)
        let stale = rows.filter { !docs.contains($0) }
        #expect(stale.isEmpty, "rows to update in docs/configuration.md (cab serve --config-reference): \(stale)")
    }
}
