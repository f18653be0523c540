import Foundation
import Logging
import Synchronization
import Testing

@testable import cab

/// Lines captured from a handler.
final class CapturedLines: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }

    /// A logger at `level` writing through `JSONLogHandler` into this capture.
    func logger(level: Logger.Level = .info) -> Logger {
        Logger(label: "test") { _ in
            var handler = JSONLogHandler(level: level) { line in self.lines.withLock { $0.append(line) } }
            handler.logLevel = level
            return handler
        }
    }

    /// The captured lines as JSON objects.
    func objects() throws -> [[String: String]] {
        try all.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]) }
    }
}

@Suite struct JSONLogHandlerTests {
    @Test func oneObjectPerLineWithTimeLevelMessageAndMetadata() throws {
        let capture = CapturedLines()
        var log = capture.logger()
        log[metadataKey: "request_id"] = "r-1"
        log.warning("store slow", metadata: ["trip": "bk_1", "detail": "a \"quoted\"\nline\t\u{1}"])
        log.debug("not written at info")
        let objects = try capture.objects()
        #expect(objects.count == 1)
        #expect(!capture.all[0].contains("\n"))
        let object = try #require(objects.first)
        #expect(object["level"] == "warning" && object["message"] == "store slow")
        #expect(object["request_id"] == "r-1" && object["trip"] == "bk_1")
        #expect(object["detail"] == "a \"quoted\"\nline\t\u{1}")
        #expect(capture.all[0].hasPrefix("{\"time\":\""))
    }

    @Test func tokensAreRedacted() throws {
        let capture = CapturedLines()
        let token = "rider_" + String(repeating: "A", count: 43)
        capture.logger().info(
            "signed in",
            metadata: [
                "token": "anything", "Authorization": "Bearer x", "pin": "1234", "note": .string(token),
                "pickup": "60.17,24.94", "mapping": "kept",
            ])
        let object = try #require(try capture.objects().first)
        #expect(
            object["token"] == "[redacted]" && object["Authorization"] == "[redacted]" && object["pin"] == "[redacted]")
        #expect(object["note"] == "[redacted]")
        #expect(object["pickup"] == "60.17,24.94" && object["mapping"] == "kept")
        #expect(!capture.all[0].contains(token))
    }

    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0.25)) == "1970-01-01T00:00:00.250Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 1_796_124_729.007)) == "2026-12-01T11:32:09.007Z")
    }

    /// The bridge for CabHTTP's JSON lines keeps their level, message and members, with our time.
    @Test func httpJSONLinesKeepTheirLevelAndMembers() throws {
        let capture = CapturedLines()
        let closure = capture.logger().jsonLineClosure()
        closure(#"{"time":"x","level":"error","message":"unhandled error","request_id":"r-9","status":500}"#)
        let object = try #require(try capture.objects().first)
        #expect(object["level"] == "error" && object["message"] == "unhandled error")
        #expect(object["request_id"] == "r-9" && object["status"] == "500" && object["time"] != "x")
    }
}
