import CabCore
import Dispatch
import Logging

/// The steps between a booking and its first offers going out, each timed on the node that takes it
/// (`observeFirstOfferStages(_:)`; `cab serve` counts them in `/metrics` as `dispatch_first_offer_stage_seconds`).
/// On a cluster the first two are the booking node's and the rest the dispatching node's, which may be another.
package enum FirstOfferStage: String, Sendable, CaseIterable {
    /// Booking node: the booking and its move to `dispatching` written together (the store's group commit).
    case commit
    /// Booking node: from durable to its start taken off the start queue (`NewBookingQueue`).
    case startQueue = "start_queue"
    /// Dispatching node: from the booking's creation to this node beginning to dispatch it. For a trip of a shard
    /// another node owns, this holds the commit, the start queue and the status's way to the owner over Redis.
    case heard
    /// The owner of a trip booked on another node: reading the trip, its offers and its declines.
    case reads
    /// The first search: the nearest drivers and their road ETAs to the pickup.
    case search
    /// The first batch's offers written under the shard's fence (clusters only).
    case offersWrite = "offers_write"
}

/// What one trip's first offer has spent so far on the dispatching node, stage by stage (seconds).
struct FirstOfferTrace: Sendable {
    var seconds: [FirstOfferStage: Double] = [:]
}

/// Monotonic time for the stages timed within one node.
struct StageClock {
    private let start = DispatchTime.now().uptimeNanoseconds

    /// Seconds since this clock was made.
    var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds &- start) / 1e9 }
}

extension DispatchCoordinator {
    /// Calls `observe` with each stage's time in seconds as a trip's first offer passes it on this node.
    package func observeFirstOfferStages(_ observe: @escaping @Sendable ((FirstOfferStage, Double)) -> Void) {
        stageObserver.withLock { $0 = Callback(observe) }
    }

    /// Tells the stage observer (if any) that `stage` took `seconds`.
    func observe(_ stage: FirstOfferStage, _ seconds: Double) {
        stageObserver.withLock { $0 }?.call((stage, seconds))
    }

    /// A first offer went out `total` milliseconds after its booking: the observers hear its total and the stages
    /// this node timed; one over 100 ms is logged with them, so that a slow one can be told apart in the logs.
    func firstOfferSent(_ trip: BookingID, totalMilliseconds total: Int64, trace: FirstOfferTrace?) {
        firstOfferObserver.withLock { $0 }?.call(total)
        guard let trace else { return }
        for (stage, seconds) in trace.seconds { observe(stage, seconds) }
        if total > 100 {
            var metadata: Logger.Metadata = ["trip": "\(trip.rawValue)", "total_ms": "\(total)"]
            for stage in FirstOfferStage.allCases {
                if let s = trace.seconds[stage] { metadata[stage.rawValue + "_ms"] = "\(Int((s * 1_000).rounded()))" }
            }
            log.info("slow first offer", metadata: metadata)
        }
    }
}
