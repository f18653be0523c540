import CabCore
import Dispatch

/// Work that waits on the store, run side by side on a fixed set of serial queues (lanes), one trip's work always
/// on the same lane (so in order). A concurrent `DispatchQueue` is no substitute on Linux: its items share
/// libdispatch's pool of about one thread per core, so two items blocked on PostgreSQL hold up every item behind
/// them (a chaos run saw new bookings wait 100-250 ms to start so). Each serial queue is served by a thread of its
/// own when it has work.
struct DispatchLanes: Sendable {
    private let lanes: [DispatchQueue]

    /// `count` lanes named `label.N`.
    init(label: String, count: Int) {
        precondition(count >= 1, "at least one lane")
        lanes = (0..<count).map { DispatchQueue(label: "\(label).\($0)") }
    }

    /// Runs `work` on `trip`'s lane (in `group`, when given).
    func async(for trip: BookingID, group: DispatchGroup? = nil, _ work: @escaping @Sendable () -> Void) {
        let lane = lanes[Int(UInt(bitPattern: trip.rawValue.hashValue) % UInt(lanes.count))]
        if let group { lane.async(group: group, execute: work) } else { lane.async(execute: work) }
    }
}
