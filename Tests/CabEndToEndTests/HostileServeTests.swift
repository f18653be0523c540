import CabTestSupport
import Foundation
import Testing

/// The probe's findings against the built `cab serve`, as an attacker and an unlucky operator meet them.
@Suite struct HostileServeTests {
    /// Finding 1: two requests from anyone killed the server.
    @Test func aHeadingOf1e19DoesNotKillTheServer() throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.freshCopy())
        defer { server.stop() }
        let signUp = try server.request(
            "POST", "/v1/drivers", json: ["name": "Mallory", "vehicle": "car", "plate": "X-1"])
        let token = try #require(signUp.jsonObject?["token"] as? String)
        let time = ISO8601DateFormatter().string(from: Date())
        let fix: [String: Any] = ["lat": 60.17, "lon": 24.94, "time": time, "accuracy": 5, "heading": 1e19]
        let answer = try server.request(
            "POST", "/v1/driver/locations", json: ["fixes": [fix]], headers: ["Authorization": "Bearer \(token)"])
        #expect(answer.status == 400)
        let device = try server.request("POST", "/v1/driver/devices", headers: ["Authorization": "Bearer \(token)"])
        let id = try #require(device.jsonObject?["device_id"] as? String)
        #expect(try server.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&bearing=1e19").status == 400)
        #expect(
            try server.request("GET", "/osmand?id=\(id)&lat=60.17&lon=24.94&timestamp=-9223372036854775807").status
                == 400)
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(server.stop() == 0)  // a clean stop: it was alive all along
    }

    @Test func aFractionalTariffAmountStopsTheServerWithTheFormat() throws {
        let file = try TestData.temporaryDirectory("tariff").appendingPathComponent("tariff.json")
        try Data(#"{"currency": "EUR", "per_km": 1.2}"#.utf8).write(to: file)
        let result = try CabProcess.run(
            ["serve", "--data", try ImportedMap.dataDirectory().path, "--port", "0", "--tariff", file.path])
        #expect(result.status == 64)
        #expect(
            result.standardError.contains("'per_km' is 1.2") && result.standardError.contains("write 120"),
            "\(result.standardError)")
        #expect(!result.standardError.contains("DecodingError"))
    }

    /// Finding 5: a zero-length cab.sqlite started an empty city without a word.
    @Test func anEmptiedStoreIsRefusedAtStartUp() throws {
        let data = try ImportedMap.freshCopy()
        do {
            let server = try ServerProcess(dataDirectory: data)
            #expect(try server.request("POST", "/v1/riders", json: ["name": "Ilona"]).status == 201)
            let stopped = server.stop()
            #expect(stopped == 0, "the server's last words: \(server.log.suffix(3_000))")
        }
        let store = data.appendingPathComponent("cab.sqlite")
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
        try Data().write(to: store)
        let result = try CabProcess.run(["serve", "--data", data.path, "--port", "0"])
        #expect(result.status == 65)
        #expect(
            result.standardError.contains("is empty (0 bytes)") && result.standardError.contains("Restore"),
            "\(result.standardError)")
    }
}
