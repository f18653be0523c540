import CabGeo
import Synchronization
import Testing

@testable import CabTracking

@Suite struct FleetFanOutTests {
    func at(_ lat: Double, _ lon: Double, time: Int64 = 0) -> DriverPosition {
        DriverPosition(coordinate: Coordinate(latitude: lat, longitude: lon), timeMilliseconds: time)
    }

    @Test func coalescesToTheNewestPositionPerDriverPerTick() {
        var hub = FleetFanOut<String>()
        let (me, _) = hub.subscribe()
        hub.publish("a", at: at(60.10, 24.9, time: 1))
        hub.publish("b", at: at(60.20, 24.9, time: 1))
        hub.publish("a", at: at(60.11, 24.9, time: 2))
        #expect(hub.tick() == [me])
        let events = hub.drain(me) ?? []
        #expect(events.map(\.driver) == ["a", "b"])
        guard events.count == 2 else { return }
        #expect(events.map(\.id) == [1, 2])
        #expect(events[0].position.timeMilliseconds == 2)
        #expect(hub.tick().isEmpty)  // nothing new, nobody woken
        hub.publish("a", at: at(60.12, 24.9, time: 3))
        _ = hub.tick()
        #expect(hub.drain(me)?.map(\.id) == [3])
    }

    @Test func aBoundingBoxSubscriberOnlySeesDriversInside() {
        var hub = FleetFanOut<String>()
        let box = BoundingBox(
            southWest: Coordinate(latitude: 60.0, longitude: 24.8),
            northEast: Coordinate(latitude: 60.2, longitude: 25.0))
        let (inside, _) = hub.subscribe(boundingBox: box)
        let (all, _) = hub.subscribe()
        hub.publish("in", at: at(60.1, 24.9))
        hub.publish("out", at: at(61.0, 24.9))
        _ = hub.tick()
        #expect(hub.drain(inside)?.map(\.driver) == ["in"])
        #expect(hub.drain(all)?.map(\.driver) == ["in", "out"])
    }

    @Test func aSlowSubscriberLosesOldPositionsAndMemoryStaysBounded() {
        var hub = FleetFanOut<Int>(configuration: .init(bufferCapacity: 4, replayCapacity: 8))
        let (slow, _) = hub.subscribe()
        for round in 0..<10 {
            for driver in 0..<3 { hub.publish(driver, at: at(60.1, 24.9, time: Int64(round))) }
            _ = hub.tick()
        }
        #expect(hub.bufferedCount(for: slow) == 4)
        #expect(hub.droppedCount(for: slow) == 26)
        #expect(hub.drain(slow)?.map(\.id) == [27, 28, 29, 30])  // the newest survive
    }

    @Test func resumesAfterLastEventIDFromTheReplayRing() {
        var hub = FleetFanOut<Int>(configuration: .init(replayCapacity: 5, firstEventID: 100))
        for driver in 0..<8 {
            hub.publish(driver, at: at(60.1, 24.9))
            _ = hub.tick()
        }  // ids 100 ... 107; the ring keeps 103 ... 107
        let (resumed, missedNone) = hub.subscribe(lastEventID: 105)
        #expect(missedNone == 0)
        #expect(hub.drain(resumed)?.map(\.id) == [106, 107])
        let (late, missed) = hub.subscribe(lastEventID: 100)
        #expect(missed == 2)  // 101 and 102 are gone
        #expect(hub.drain(late)?.map(\.id) == [103, 104, 105, 106, 107])
        let (fresh, _) = hub.subscribe(lastEventID: 107)
        #expect(hub.drain(fresh) == [])
    }

    @Test func theStreamHubWakesAPendingSubscriberOnceAndEndsAfterClose() {
        let hub = FleetBroadcaster<String>()
        let subscription = hub.subscribe()
        let wakes = Mutex(0)
        #expect(subscription.next(waker: { wakes.withLock { $0 += 1 } }) == .pending)
        hub.publish("a", at: at(60.1, 24.9))
        #expect(wakes.withLock { $0 } == 0)  // published, not yet ticked
        hub.tick()
        #expect(wakes.withLock { $0 } == 1)
        guard case .events(let events) = subscription.next(waker: {}) else {
            Issue.record("expected events")
            return
        }
        #expect(events.map(\.driver) == ["a"])
        subscription.close()
        #expect(subscription.next(waker: {}) == .end)
        #expect(hub.subscriberCount == 0)
    }
}

@Suite struct BoundedQueueTests {
    @Test func keepsTheNewestInOrderAcrossWrapAround() {
        var queue = BoundedQueue<Int>(capacity: 3)
        #expect(queue.push(1) == nil)
        #expect(queue.push(2) == nil)
        #expect(queue.popFirst() == 1)
        #expect(queue.push(3) == nil)
        #expect(queue.push(4) == nil)
        #expect(queue.push(5) == 2)
        #expect(queue.elements == [3, 4, 5])
        #expect(queue.popFirst() == 3)
        #expect(queue.push(6) == nil)
        #expect(queue.elements == [4, 5, 6])
    }
}
