import CabCore
import Synchronization
import Testing

@testable import CabCluster

/// A node's clock set by the database's: the offset measured over the shortest round trip, kept while new
/// measures stay within the tolerance, this node's own clock until a first measure.
@Suite struct DatabaseClockTests {
    /// The database's time (the truth) and a node's clock `skew` behind it; each read of the database takes the
    /// next of `delays`, the database answering halfway through it.
    final class Clocks: Sendable {
        let truth = Mutex<Int64>(1_000_000)
        let skew = Mutex<Int64>(30_000)
        let delays: Mutex<[Int64]>
        let failing = Atomic<Bool>(false)
        init(delays: [Int64]) { self.delays = Mutex(delays) }

        var node: Int64 { truth.withLock { $0 } - skew.withLock { $0 } }

        func read() throws -> Int64 {
            struct Down: Error {}
            if failing.load(ordering: .relaxed) { throw Down() }
            let delay = delays.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
            return truth.withLock { t in
                let answer = t + delay / 2
                t += delay
                return answer
            }
        }
    }

    @Test func aNodeThirtySecondsBehindStampsTheDatabasesTime() {
        let clocks = Clocks(delays: [40, 4, 60])
        let clock = DatabaseClock(read: { try clocks.read() }, local: { clocks.node })
        #expect(clock.now().millisecondsSinceEpoch == clocks.node)  // its own clock before a first measure
        #expect(clock.synchronize(reads: 3))
        #expect(clock.offsetMilliseconds == 30_000)
        #expect(clock.now().millisecondsSinceEpoch == clocks.truth.withLock { $0 })
    }

    @Test func measuresWithinTheToleranceKeepTheOffsetAndAFailedOneChangesNothing() {
        let clocks = Clocks(delays: [2])
        let clock = DatabaseClock(toleranceMilliseconds: 20, read: { try clocks.read() }, local: { clocks.node })
        #expect(clock.synchronize(reads: 1))
        #expect(clock.offsetMilliseconds == 30_000)
        // The node's clock drifted 15 ms: within the tolerance, the offset stays (no back and forth by jitter).
        clocks.skew.withLock { $0 += 15 }
        #expect(clock.synchronize(reads: 1))
        #expect(clock.offsetMilliseconds == 30_000)
        // It stepped 5 s back (an operator, a VM resumed): adopted, and the database's time goes on, not back.
        clocks.skew.withLock { $0 += 5_000 }
        #expect(clock.synchronize(reads: 1))
        #expect(clock.offsetMilliseconds == 35_015)
        #expect(clock.now().millisecondsSinceEpoch == clocks.truth.withLock { $0 })
        clocks.failing.store(true, ordering: .relaxed)
        #expect(!clock.synchronize())
        #expect(clock.offsetMilliseconds == 35_015)
    }
}
