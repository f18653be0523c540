import Testing

@testable import CabCore

/// Shard ownership without I/O, on a hand-moved monotonic clock (milliseconds): shares, acting deadlines counted
/// from the request's sending, renewals, hand-over, stopping, and a node paused past its deadlines.
@Suite struct ShardOwnershipTests {
    static let a = ClusterNodeID("node-a")
    static let b = ClusterNodeID("node-b")
    /// A 9 s lease: acting stops 6 s after the request was sent, renewal 3 s after.
    static let timing = ShardOwnership.Configuration(leaseMilliseconds: 9_000)

    /// Every shard free (never taken).
    static let free = DispatchShard.all.map {
        ShardLease(fence: ShardFence(shard: $0, fence: 0), owner: nil, expiresAt: nil, isLive: false)
    }

    /// Leases as the database would show them for the machine's holdings plus `others`.
    static func leases(held m: ShardOwnership, others: [DispatchShard: (ClusterNodeID, Int64)] = [:]) -> [ShardLease] {
        DispatchShard.all.map { s in
            if let h = m.held[s] {
                return ShardLease(fence: h.fence, owner: m.node, expiresAt: nil, isLive: true)
            }
            if let (owner, fence) = others[s] {
                return ShardLease(fence: ShardFence(shard: s, fence: fence), owner: owner, expiresAt: nil, isLive: true)
            }
            return ShardLease(fence: ShardFence(shard: s, fence: 0), owner: nil, expiresAt: nil, isLive: false)
        }
    }

    static func won(_ shard: DispatchShard, by node: ClusterNodeID, fence: Int64) -> ShardLease {
        ShardLease(fence: ShardFence(shard: shard, fence: fence), owner: node, expiresAt: nil, isLive: true)
    }

    static func acquisitions(_ actions: [ShardOwnership.Action]) -> [DispatchShard] {
        actions.compactMap { if case .acquire(let s) = $0 { s } else { nil } }
    }

    /// A machine for `node` that asked for and won its share at `time` (fence 1 on each).
    static func owning(_ node: ClusterNodeID = a, live: [ClusterNodeID] = [a], at time: Int64 = 0) -> ShardOwnership {
        var m = ShardOwnership(node: node, configuration: timing)
        for shard in acquisitions(m.observed(liveNodes: live, leases: free, at: time)) {
            _ = m.acquired(shard, lease: won(shard, by: node, fence: 1), at: time + 5)
        }
        return m
    }

    @Test func aNodeAloneAsksForEveryShardAndActsOnEachItWins() {
        var m = ShardOwnership(node: Self.a, configuration: Self.timing)
        let asked = Self.acquisitions(m.observed(liveNodes: [Self.a], leases: Self.free, at: 0))
        #expect(asked == DispatchShard.all)
        #expect(m.fence(of: DispatchShard(3), at: 1) == nil, "asking is not owning")
        let shard = DispatchShard(3)
        #expect(
            m.acquired(shard, lease: Self.won(shard, by: Self.a, fence: 4), at: 10) == [
                .startActing(ShardFence(shard: shard, fence: 4))
            ])
        #expect(m.fence(of: shard, at: 10) == ShardFence(shard: shard, fence: 4))
        let other = DispatchShard(4)
        #expect(m.acquired(other, lease: nil, at: 10).isEmpty, "another node won it")
        #expect(m.fence(of: other, at: 10) == nil)
        #expect(m.ownedShards(at: 10) == [shard])
        // The lost one is asked for again on the next look; the one held is not.
        let again = Self.acquisitions(m.observed(liveNodes: [Self.a], leases: Self.leases(held: m), at: 250))
        #expect(again.contains(other) && !again.contains(shard))
    }

    @Test(arguments: 1...7) func evenSharesAddUpToEveryShard(nodes count: Int) {
        let nodes = (0..<count).map { ClusterNodeID("n\($0)") }
        let shares = nodes.map { ShardOwnership.evenShare(of: nodes, for: $0) }
        #expect(shares.reduce(0, +) == 64)
        #expect(shares.max()! - shares.min()! <= 1)  // non-empty: count >= 1
    }

    @Test func twoNodesStartingTogetherAskForDisjointHalves() {
        var m = ShardOwnership(node: Self.a, configuration: Self.timing)
        var n = ShardOwnership(node: Self.b, configuration: Self.timing)
        let mine = Self.acquisitions(m.observed(liveNodes: [Self.a, Self.b], leases: Self.free, at: 0))
        let theirs = Self.acquisitions(n.observed(liveNodes: [Self.b, Self.a], leases: Self.free, at: 0))
        #expect(mine.count == 32 && theirs.count == 32)
        #expect(Set(mine).isDisjoint(with: theirs))
        #expect(mine.allSatisfy { $0.index % 2 == 0 })
    }

    @Test func actingStopsTwoThirdsIntoTheLeaseCountedFromWhenTheRequestWasSent() {
        var m = ShardOwnership(node: Self.a, configuration: Self.timing)
        let shard = DispatchShard(0)
        _ = m.observed(liveNodes: [Self.a], leases: Self.free, at: 1_000)
        // The answer took 4 s: the deadline is still 6 s after sending, not after the answer.
        _ = m.acquired(shard, lease: Self.won(shard, by: Self.a, fence: 1), at: 5_000)
        #expect(m.actingDeadline(of: shard) == 7_000)
        #expect(m.fence(of: shard, at: 6_999) != nil)
        #expect(m.fence(of: shard, at: 7_000) == nil)
        #expect(m.tick(at: 7_000).contains(.stopActing(shard)))
    }

    @Test func anAnswerThatCameAfterItsDeadlineIsNotActedOn() {
        var m = ShardOwnership(node: Self.a, configuration: Self.timing)
        let shard = DispatchShard(0)
        _ = m.observed(liveNodes: [Self.a], leases: Self.free, at: 0)
        #expect(m.acquired(shard, lease: Self.won(shard, by: Self.a, fence: 1), at: 6_000).isEmpty)
        #expect(m.fence(of: shard, at: 6_000) == nil)
        // The database still shows the lease as this node's: it is asked for again (a new fence).
        let leases = Self.free.map { $0.shard == shard ? Self.won(shard, by: Self.a, fence: 1) : $0 }
        #expect(Self.acquisitions(m.observed(liveNodes: [Self.a], leases: leases, at: 6_100)).contains(shard))
    }

    @Test func renewalMovesTheDeadlineToTwoThirdsAfterTheRenewalWasSent() {
        var m = Self.owning()
        let shard = DispatchShard(5)
        let fence = ShardFence(shard: shard, fence: 1)
        #expect(m.tick(at: 2_999).isEmpty)
        let renewals = m.tick(at: 3_000)
        #expect(renewals.count == 64 && renewals.contains(.renew(fence)))
        #expect(m.tick(at: 3_100).isEmpty, "one renewal in flight at a time")
        #expect(m.renewed(fence, lease: Self.won(shard, by: Self.a, fence: 1), at: 3_400).isEmpty)
        #expect(m.actingDeadline(of: shard) == 9_000)
        #expect(m.fence(of: shard, at: 8_999) == fence)
        #expect(m.fence(of: shard, at: 9_000) == nil)
    }

    @Test func aRefusedRenewalStopsActingAtOnce() {
        var m = Self.owning()
        let fence = ShardFence(shard: DispatchShard(5), fence: 1)
        _ = m.tick(at: 3_000)
        #expect(m.renewed(fence, lease: nil, at: 3_050) == [.stopActing(fence.shard)])
        #expect(m.fence(of: fence.shard, at: 3_050) == nil)
    }

    @Test func aFailedRenewalIsTriedAgainAndTheLeaseIsKeptOnlyUntilItsDeadline() {
        var m = Self.owning()
        let fence = ShardFence(shard: DispatchShard(5), fence: 1)
        _ = m.tick(at: 3_000)
        m.requestFailed(fence.shard)  // the database did not answer
        #expect(m.fence(of: fence.shard, at: 4_000) == fence)
        #expect(m.tick(at: 4_000).contains(.renew(fence)))
        m.requestFailed(fence.shard)
        #expect(m.tick(at: 6_005).contains(.stopActing(fence.shard)))
        #expect(m.fence(of: fence.shard, at: 6_005) == nil)
    }

    @Test func aPausedNodeWakesOwningNothingAndMustAcquireAgainUnderAHigherFence() {
        var m = Self.owning()
        let shard = DispatchShard(9)
        #expect(m.fence(of: shard, at: 100) == ShardFence(shard: shard, fence: 1))
        // SIGSTOP for 20 s: the clock jumps past every deadline. Before any tick the node already owns nothing.
        let woke: Int64 = 20_005
        #expect(m.fence(of: shard, at: woke) == nil)
        #expect(m.ownedShards(at: woke).isEmpty)
        let actions = m.observed(
            liveNodes: [Self.a, Self.b],
            leases: DispatchShard.all.map {
                $0.index < 32
                    ? Self.won($0, by: Self.b, fence: 2)  // taken over by B while A slept
                    : ShardLease(fence: ShardFence(shard: $0, fence: 1), owner: Self.a, expiresAt: nil, isLive: false)
            }, at: woke)
        #expect(actions.filter { if case .stopActing = $0 { true } else { false } }.count == 64)
        let asked = Self.acquisitions(actions)
        #expect(asked.count == 32 && asked.allSatisfy { $0.index >= 32 }, "only what B does not hold")
        let again = DispatchShard(40)
        #expect(
            m.acquired(again, lease: Self.won(again, by: Self.a, fence: 2), at: woke + 3) == [
                .startActing(ShardFence(shard: again, fence: 2))
            ])
    }

    @Test func aRenewalAnsweredAfterAPauseIsNotTrusted() {
        var m = Self.owning()
        let fence = ShardFence(shard: DispatchShard(5), fence: 1)
        _ = m.tick(at: 3_000)
        // Paused with the renewal in flight; the database renewed it at once, the answer is read 20 s later.
        #expect(
            m.renewed(fence, lease: Self.won(fence.shard, by: Self.a, fence: 1), at: 23_000) == [
                .stopActing(fence.shard)
            ])
    }

    @Test func aHeldLeaseTheDatabaseShowsUnderAnotherFenceIsDropped() {
        var m = Self.owning()
        let shard = DispatchShard(7)
        let leases = Self.leases(held: m).map { $0.shard == shard ? Self.won(shard, by: Self.b, fence: 2) : $0 }
        let actions = m.observed(liveNodes: [Self.a], leases: leases, at: 500)
        #expect(actions.contains(.stopActing(shard)))
        #expect(m.fence(of: shard, at: 500) == nil)
    }

    @Test func aJoiningNodeIsHandedTheOtherStripeStoppingActingBeforeReleasing() {
        var m = Self.owning()
        #expect(m.ownedShards(at: 100).count == 64)
        let actions = m.observed(liveNodes: [Self.a, Self.b], leases: Self.leases(held: m), at: 250)
        let released = actions.compactMap { if case .release(let f) = $0 { f.shard } else { nil } }
        #expect(released.count == 32 && released.allSatisfy { $0.index % 2 == 1 })
        for shard in released {
            let stop = actions.firstIndex(of: .stopActing(shard))
            let release = actions.firstIndex(of: .release(ShardFence(shard: shard, fence: 1)))
            #expect(stop != nil && release != nil && stop! < release!)  // both checked non-nil first
        }
        #expect(m.ownedShards(at: 250).count == 32)
        // Once shared, a look changes nothing.
        #expect(m.observed(liveNodes: [Self.a, Self.b], leases: Self.leases(held: m), at: 500).isEmpty)
    }

    @Test func stoppingStopsActingAndReleasesEverythingAndWhatIsWonLaterIsReleasedToo() {
        var m = ShardOwnership(node: Self.a, configuration: Self.timing)
        let asked = Self.acquisitions(m.observed(liveNodes: [Self.a], leases: Self.free, at: 0))
        for shard in asked.dropLast() { _ = m.acquired(shard, lease: Self.won(shard, by: Self.a, fence: 3), at: 1) }
        let actions = m.stop(at: 10)
        #expect(actions.count == 2 * 63)
        #expect(Array(actions.prefix(63)).allSatisfy { if case .stopActing = $0 { true } else { false } })
        #expect(m.ownedShards(at: 10).isEmpty)
        let late = asked.last!  // 64 were asked
        #expect(
            m.acquired(late, lease: Self.won(late, by: Self.a, fence: 3), at: 11) == [
                .release(ShardFence(shard: late, fence: 3))
            ])
        #expect(m.observed(liveNodes: [Self.a], leases: Self.free, at: 20).isEmpty)
        #expect(m.tick(at: 3_000).isEmpty)
    }
}
