import CabCore
import Foundation
import Synchronization

/// The one clock tests move by hand (STYLE §4: time is injected; tests never sleep): the server's tests read it as
/// an `Instant` (`now()`), the SDK's and the apps' tests as a `Date` (`date`). It never goes back by itself.
public final class ManualClock: Sendable {
    private let milliseconds: Mutex<Int64>

    /// A clock at `millisecondsSinceEpoch`.
    public init(millisecondsSinceEpoch: Int64) { milliseconds = Mutex(millisecondsSinceEpoch) }

    /// A clock at `start`.
    public convenience init(_ start: Instant) { self.init(millisecondsSinceEpoch: start.millisecondsSinceEpoch) }

    /// A clock at `start` (by default a fixed day in 2025, so runs are alike).
    public convenience init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        self.init(millisecondsSinceEpoch: Int64((start.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The time now, as the server's code reads it.
    public func now() -> Instant { Instant(millisecondsSinceEpoch: milliseconds.withLock { $0 }) }

    /// The time now, as the SDK's and the apps' code read it.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds.withLock { $0 }) / 1000) }

    /// Moves the clock on by `seconds`.
    public func advance(seconds: Double) { milliseconds.withLock { $0 += Int64((seconds * 1000).rounded()) } }

    /// Moves the clock on by `seconds`.
    public func advance(_ seconds: Double) { advance(seconds: seconds) }

    /// Moves to `date` if it is later (a clock never goes back).
    public func catchUp(to date: Date) {
        let target = Int64((date.timeIntervalSince1970 * 1000).rounded())
        milliseconds.withLock { $0 = max($0, target) }
    }
}
