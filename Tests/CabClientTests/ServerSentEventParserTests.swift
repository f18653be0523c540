import Foundation
import Testing

@testable import CabClient

@Suite struct ServerSentEventParserTests {
    let stream =
        "retry: 2500\n: connected\n\nevent: offer\nid: 41\ndata: {\"a\":1}\n\ndata: line one\ndata: line two\n\n"

    @Test(arguments: [1, 2, 3, 7, 1000])
    func eventsAreTheSameWhateverTheChunksAre(chunkSize: Int) {
        var parser = ServerSentEventParser()
        let bytes = Array(stream.utf8)
        var events: [ServerSentEvent] = []
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            events += parser.feed(bytes[start..<min(start + chunkSize, bytes.count)])
        }
        #expect(
            events == [
                ServerSentEvent(type: "offer", data: "{\"a\":1}", lastEventID: "41"),
                ServerSentEvent(type: "message", data: "line one\nline two", lastEventID: "41"),
            ])
        #expect(parser.retryMilliseconds == 2500)
        #expect(parser.lastEventID == "41")
    }

    @Test func commentLinesAreCountedAsHeartbeatsAndDeliverNothing() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array(": connected\n\n: heartbeat\n\ndata: x\n: inside an event\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "x")])
        #expect(parser.comments == 3)
    }

    @Test func crlfAndLoneCRAndNoSpaceAfterTheColonAreLineEnds() {
        var parser = ServerSentEventParser()
        let events = parser.feed(Array("event:a\r\ndata:1\r\n\r\nevent: b\rdata: 2\r\r".utf8))
        #expect(events.map(\.type) == ["a", "b"])
        #expect(events.map(\.data) == ["1", "2"])
    }

    @Test func anEventCutOffByTheConnectionIsDroppedButItsIdSurvives() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("id: 7\ndata: whole\n\nid: 8\ndata: half".utf8)).map(\.data) == ["whole"])
        parser.connectionEnded()
        #expect(parser.lastEventID == "8")  // the id line was complete
        #expect(parser.feed(Array("\n\ndata: next\n\n".utf8)).map(\.data) == ["next"])
    }

    @Test func anEventLargerThanTheLimitIsSkippedWholeAndCounted() {
        var parser = ServerSentEventParser(maxEventBytes: 64)
        let big = String(repeating: "x", count: 200)
        let events = parser.feed(Array("data: \(big)\ndata: more\n\ndata: small\n\n".utf8))
        #expect(events.map(\.data) == ["small"])
        #expect(parser.oversizedEvents == 1)
    }

    @Test func aBlankLineWithoutDataDispatchesNothing() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("event: ping\n\n: heartbeat\n\n".utf8)).isEmpty)
    }
}

@Suite struct ServerProblemTests {
    @Test func readsCodeTitleAndDetailOfProblemJSON() throws {
        let body =
            #"{"type":"about:blank","title":"No open offer","status":409,"detail":"The offer expired.","code":"offer_not_open"}"#
        let problem = ServerProblem(status: 409, data: Data(body.utf8), retryAfter: " 3 ")
        #expect(problem.code == "offer_not_open")
        #expect(problem.title == "No open offer")
        #expect(problem.detail == "The offer expired.")
        #expect(problem.retryAfterSeconds == 3)
        let error = problem.error
        #expect(error.code == .server)
        #expect(error.message == "The offer expired.")
        #expect(error.problem == problem)
    }

    @Test func aBodyThatIsNotAProblemStillNamesTheStatus() {
        let problem = ServerProblem(status: 502, data: Data("<html>bad gateway</html>".utf8), retryAfter: nil)
        #expect(problem.code == nil && problem.detail == nil)
        #expect(problem.error.message == "The server answered 502.")
    }
}
