import CabTestSupport
import Foundation
import Testing

/// `cab simulate --lean` (issue 17's fleet figures): lean phones against a real `cab serve`, every fix posted
/// at its slot and accepted, and the drivers on the dispatcher's map where their lines run.
@Suite struct LeanFleetTests {
    @Test func leanPhonesPostEveryFixAtItsSlotAndTheServerHasThemAll() throws {
        let data = try ImportedMap.freshCopy("helsinki")
        defer { try? FileManager.default.removeItem(at: data) }
        let admin = try CabProcess.run(["admin", "create-dispatcher", "--data", data.path, "Lean desk"])
        #expect(admin.status == 0, "\(admin.standardError)")
        let desk = admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(dataDirectory: data, extraArguments: ["--max-per-address", "0"])
        defer { server.stop() }
        // 300 drivers, one fix every 2 s for 7 s: a first period, then about 2.5 more fixes each.
        let run = try CabProcess.run([
            "simulate", "--lean", "--data", data.path, "--url", "http://127.0.0.1:\(server.port)", "--drivers", "300",
            "--rate", "2", "--duration", "7", "--threads", "2",
        ])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let out = run.standardOutput
        #expect(out.contains("300 drivers signed up"), "\(out)")
        // Every driver posts at its slot of each 2 s period that starts before 7 s: 3 whole periods and the first
        // half of the fourth, however late the machine makes them; all of them taken.
        #expect(out.contains(": 1050 uploads, 0 failed"), "\(out)")
        #expect(out.contains("(expected 150/s)"), "\(out)")
        // The server has their positions (the nearest 100 it lists, whatever their status), inside the map.
        let nearby = try server.request(
            "GET", "/v1/drivers/nearby?lat=60.17&lon=24.94&k=100&status=available,busy,offline",
            headers: ["Authorization": "Bearer \(desk)"])
        let drivers = try #require(nearby.jsonObject?["drivers"] as? [[String: Any]], "\(nearby.text)")
        #expect(drivers.count == 100)
        let latitudes = drivers.compactMap { ($0["position"] as? [String: Any])?["lat"] as? Double }
        #expect(latitudes.count == 100 && latitudes.allSatisfy { (60.15...60.19).contains($0) }, "\(latitudes)")
    }
}
