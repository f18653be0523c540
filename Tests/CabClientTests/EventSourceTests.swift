import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct EventSourceTests {
    let quick = EventSource.Configuration(reconnectDelay: .milliseconds(10), maxReconnectDelay: .milliseconds(40))

    @Test func reconnectsWithLastEventIDAndDeliversAcrossConnections() async throws {
        let server = try ScriptedHTTPServer(replies: [
            ScriptedHTTPServer.stream("id: 7\nevent: position\ndata: one\n\ndata: cut off"),
            ScriptedHTTPServer.stream("retry: 20\nid: 8\nevent: position\ndata: two\n\n"),
        ])
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/fleet/stream")!)
        var events: [ServerSentEvent] = []
        var interruptions = 0
        for await delivery in EventSource.deliveries(of: request, configuration: quick) {
            switch delivery {
            case .event(let event): events.append(event)
            case .interrupted: interruptions += 1
            default: break
            }
            if events.count == 2 { break }
        }
        #expect(events.map(\.data) == ["one", "two"])  // "cut off" never ended: dropped, not delivered
        #expect(events.map(\.lastEventID) == ["7", "8"])
        #expect(interruptions == 1)
        let second = try #require(server.requests.dropFirst().first)
        #expect(second.lowercased().contains("last-event-id: 7\r\n"))
        #expect(!server.requests[0].lowercased().contains("last-event-id"))
    }

    @Test func aRefusalIsTypedAndEndsTheStream() async throws {
        let server = try ScriptedHTTPServer(replies: [
            ScriptedHTTPServer.problem(status: 410, title: "Link ended", detail: "This trip has ended.")
        ])
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/track/x/stream")!)
        var deliveries: [EventSource.Delivery] = []
        for await delivery in EventSource.deliveries(of: request, configuration: quick) { deliveries.append(delivery) }
        #expect(
            deliveries == [
                .refused(ServerProblem(status: 410, code: "gone", title: "Link ended", detail: "This trip has ended."))
            ])
    }

    @Test func aServerThatIsDownIsRetriedWithGrowingWaits() async throws {
        let port = try ScriptedHTTPServer(replies: []).port  // closed again at once: nothing listens there
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/driver/stream")!)
        var waits: [Duration] = []
        for await delivery in EventSource.deliveries(of: request, configuration: quick) {
            if case .interrupted(let code, _, let wait) = delivery {
                #expect(code == .network)
                waits.append(wait)
            }
            if waits.count == 4 { break }
        }
        #expect(waits == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(40)])
    }

    @Test func streamsARealRiderTripOnThisPlatform() async throws {
        let server = try ServerProcess(dataDirectory: try ImportedMap.freshCopy("helsinki"))
        defer { server.stop() }
        let base = URL(string: "http://127.0.0.1:\(server.port)")!
        let rider = try await CabAPIClient(baseURL: base).createRider(name: "Stream")
        let client = CabAPIClient(baseURL: base, token: rider.token)
        let booking = try await client.book(
            from: Coordinate(latitude: 60.1699, longitude: 24.9384),
            to: Coordinate(latitude: 60.1655, longitude: 24.9466))
        var first: ServerSentEvent?
        // The stream stays open while the trip looks for a driver: an event arriving proves bytes stream in.
        for await delivery in EventSource.deliveries(of: client.request("/v1/bookings/\(booking.id)/stream")) {
            if case .event(let event) = delivery {
                first = event
                break
            }
        }
        #expect(first?.type == "status")
        #expect(first?.data.contains(booking.id) == true)
    }
}
