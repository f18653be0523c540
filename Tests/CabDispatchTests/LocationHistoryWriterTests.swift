import CabCore
import CabDispatch
import CabGeo
import Dispatch
import Synchronization
import Testing

/// The history writer's bounded queue: room reserved for a caller that must not wait is not taken by others, is
/// filled without waiting, and is given back when unused.
@Suite struct LocationHistoryWriterTests {
    /// A trail store whose appends wait until `open()`.
    final class GatedHistory: LocationHistoryRepository {
        /// Signalled when an append starts waiting.
        let entered = DispatchSemaphore(value: 0)
        let written = Mutex<[DriverLocationRecord]>([])
        private let gate = DispatchSemaphore(value: 0)
        private let opened = Atomic<Bool>(false)

        func open() {
            if !opened.exchange(true, ordering: .sequentiallyConsistent) { gate.signal() }
        }

        func append(_ records: [DriverLocationRecord]) throws -> Int {
            if !opened.load(ordering: .sequentiallyConsistent) {
                entered.signal()
                gate.wait()
                gate.signal()  // and every later append
            }
            written.withLock { $0 += records }
            return records.count
        }

        func trail(of driver: DriverID, from: Instant, to: Instant, limit: Int) throws -> [DriverLocationRecord] { [] }
    }

    static let driver = DriverID.random()
    static func record(_ second: Int) -> DriverLocationRecord {
        DriverLocationRecord(
            driverID: driver, time: Instant(millisecondsSinceEpoch: 1_780_000_000_000).adding(seconds: second),
            coordinate: Coordinate(latitude: 60.17, longitude: 24.94))
    }

    @Test func reservedRoomIsHeldFilledWithoutWaitingAndGivenBack() {
        let history = GatedHistory()
        let writer = LocationHistoryWriter(repository: history, capacity: 2, batchSize: 1)
        defer {
            history.open()
            writer.close()
        }
        writer.enqueue([Self.record(1)])
        #expect(history.entered.wait(timeout: .now() + 10) == .success)  // the writer holds record 1
        let room = writer.reserveRoom(for: 2)
        #expect(room != nil)
        #expect(writer.reserveRoom(for: 1) == nil)  // the queue is empty, but its room is promised
        // fills the promised room; would hang if it waited
        writer.enqueue([Self.record(2), Self.record(3)], into: room)
        #expect(writer.reserveRoom(for: 1) == nil)  // full now
        history.open()
        writer.flush()
        #expect(history.written.withLock { $0.map(\.time) } == (1...3).map { Self.record($0).time })
        let unused = writer.reserveRoom(for: 2)
        #expect(unused != nil)
        if let unused { writer.release(unused) }
        #expect(writer.reserveRoom(for: 2) != nil)  // given back
    }
}
