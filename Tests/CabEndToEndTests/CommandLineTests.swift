import CabTestSupport
import Foundation
import Testing

@Suite struct CommandLineTests {
    @Test func unknownCommandExits64() throws {
        let result = try CabProcess.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown command"))
    }

    /// ArgumentParser writes `USAGE:`, the pass-through commands (bench, simulate) their own `usage:`.
    @Test(arguments: [
        ([], ["serve", "import", "route", "search", "reverse", "admin", "migrate", "simulate", "bench"]),
        (["import"], ["--data", "--quiet", "--log-level"]),
        (["route"], ["--from", "--to", "--json", "--data"]),
        (
            ["serve"],
            [
                "--config", "--print-config", "--data", "--host", "--port", "--threads", "--public", "--tariff",
                "--pickup-overdue", "--arrival-radius", "--arrival-fix-age", "--max-per-address", "--log-level",
            ]
        ),
        (["search"], ["--near", "--limit", "TEXT"]),
        (["admin", "create-dispatcher"], ["--data", "NAME"]),
        (["migrate"], ["--postgres", "--from"]),
        (["bench"], ["kinds:", "dispatch"]),
        (["simulate"], ["--drivers", "--rate"]),
    ])
    func helpExplainsEveryFlag(_ command: [String], _ mentions: [String]) throws {
        let result = try CabProcess.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.lowercased().contains("usage: cab"))
        for word in mentions { #expect(result.standardOutput.contains(word), "\(command) --help lacks \(word)") }
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsKnowTheCommandsAndFlags(_ shell: String) throws {
        let result = try CabProcess.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.standardError)")
        for word in ["serve", "route", "pickup-overdue", "print-config"] {
            #expect(result.standardOutput.contains(word), "the \(shell) script lacks \(word)")
        }
    }

    @Test(arguments: [
        (["serve", "--frobnicate"], "--frobnicate"),
        (["route", "--from"], "--from"),
        (["search", "--limit", "many", "x"], "--limit"),
        (["search", "--limit", "99", "x"], "--limit must be a whole number from 1 to 50"),
        (["import"], "MAP.osm.pbf"),
        (["serve", "--port", "99999", "--print-config"], "http.port: must be between 0 and 65535"),
        (["serve", "--log-level", "loud", "--print-config"], "log_level: must be one of"),
        (["route", "--log-level", "loud", "--from", "1,1", "--to", "1,1"], "--log-level must be one of"),
    ])
    func aBadFlagExits64SayingWhatToFix(_ arguments: [String], _ message: String) throws {
        let result = try CabProcess.run(arguments)
        #expect(result.status == 64)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    /// One JSON object per line on standard error, with time, level and message; the token printed on standard
    /// output never reaches the log; `--log-level warning` leaves out info lines.
    @Test func logLinesAreJSONWithoutTokens() throws {
        let data = try TestData.temporaryDirectory("log-lines")
        let result = try CabProcess.run(["admin", "create-dispatcher", "--data", data.path, "Desk"])
        #expect(result.status == 0, "\(result.standardError)")
        let token = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("dispatcher_"))
        let lines = result.standardError.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["time"]?.hasSuffix("Z") == true && object["level"] == "info" && object["message"] != nil)
        }
        #expect(result.standardError.contains("dispatcher created"))
        #expect(!result.standardError.contains(token))
        let quiet = try CabProcess.run([
            "admin", "create-dispatcher", "--data", data.path, "Desk", "--log-level", "warning",
        ])
        #expect(quiet.status == 0 && quiet.standardError.isEmpty, "\(quiet.standardError)")
        let quietByEnvironment = try CabProcess.run(
            ["admin", "create-dispatcher", "--data", data.path, "Desk"], environment: ["CAB_LOG_LEVEL": "error"])
        #expect(quietByEnvironment.status == 0 && quietByEnvironment.standardError.isEmpty)
        let badLevel = try CabProcess.run(["route", "--help"], environment: ["CAB_LOG_LEVEL": "loud"])
        #expect(badLevel.status == 64 && badLevel.standardError.contains("CAB_LOG_LEVEL must be one of"))
    }

    @Test func importPrintsCountsAndRouteAnswers() throws {
        let data = try ImportedMap.dataDirectory("helsinki")
        let manifest =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: data.appendingPathComponent("map.json"))) as? [String: Any]
        let counts = try #require(manifest?["counts"] as? [String: Int])
        #expect(counts["osm_nodes"] == 24_260)
        #expect(counts["osm_ways"] == 5_130)
        let route = try CabProcess.run([
            "route", "--data", data.path, "--from", "60.1699,24.9384", "--to", "60.1655,24.9466", "--json",
        ])
        #expect(route.status == 0, "\(route.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(route.standardOutput.utf8)) as? [String: Any])
        let meters = try #require(json["distance_m"] as? Double)
        let seconds = try #require(json["duration_s"] as? Double)
        // The two points are ~650 m apart by air; the road route must be longer, but not absurdly.
        #expect(meters > 650 && meters < 2_000)
        #expect(seconds > 30 && seconds < 600)
    }

    @Test(arguments: [
        (["--from", "91,24.9", "--to", "60.1655,24.9466"], 64, "out of range"),
        (["--from", "nan,24.9", "--to", "60.1655,24.9466"], 64, "out of range"),
        (["--from", "60.17", "--to", "60.1655,24.9466"], 64, "LAT,LON"),
        (["--to", "60.1655,24.9466"], 64, "--from"),
        (["--from", "60.1699,24.9384", "--to", "61.5,25.5"], 65, "no road within"),
    ])
    func routeRejectsBadInputWithAClearMessage(_ flags: [String], _ status: Int32, _ message: String) throws {
        let data = try ImportedMap.dataDirectory("helsinki")
        let result = try CabProcess.run(["route", "--data", data.path] + flags)
        #expect(result.status == status)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func importOfACorruptFileFailsAndKeepsThePreviousMap() throws {
        let dir = try TestData.temporaryDirectory("corrupt-import")
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try CabProcess.run([
            "import", TestData.sharedExtract("helsinki").path, "--data", dir.path, "--quiet",
        ])
        #expect(good.status == 0)
        let before = try Data(contentsOf: dir.appendingPathComponent("map.json"))
        var bytes = try Data(contentsOf: TestData.sharedExtract("monaco"))
        bytes = bytes.prefix(bytes.count / 2)
        let truncated = dir.appendingPathComponent("truncated.osm.pbf")
        try bytes.write(to: truncated)
        let bad = try CabProcess.run(["import", truncated.path, "--data", dir.path, "--quiet"])
        #expect(bad.status == 65)
        #expect(bad.standardError.contains("byte"), "the error names the byte offset: \(bad.standardError)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("map.json")) == before)
    }

    @Test func routeWithoutAnImportSaysHowToImport() throws {
        let dir = try TestData.temporaryDirectory("empty")
        let result = try CabProcess.run(["route", "--data", dir.path, "--from", "60.17,24.94", "--to", "60.16,24.95"])
        #expect(result.status == 66)
        #expect(result.standardError.contains("cab import"))
    }
}
