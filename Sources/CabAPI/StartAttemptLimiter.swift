import CabCore

/// Wrong start codes per trip, as a sans-I/O state machine: after `maximumWrongCodes` wrong codes in a row the
/// trip refuses every start for a while (the first lock 5 minutes, each further lock twice as long, at most a
/// day), so the 10,000 PINs cannot be tried in a burst. A right code clears the trip's count.
///
/// Counts live in memory: a restart forgives them (documented in docs/threat-model.md). The table holds at most
/// `maximumTrips` entries; when it is full, entries whose lock has run out are forgotten first.
struct StartAttemptLimiter: Sendable {
    /// Wrong codes allowed before a lock.
    var maximumWrongCodes = 5
    /// The first lock's length.
    var firstLockMilliseconds: Int64 = 300_000
    /// The longest lock.
    var longestLockMilliseconds: Int64 = 86_400_000
    /// Trips tracked at once.
    var maximumTrips = 100_000

    /// What a start attempt may do.
    enum Verdict: Equatable, Sendable {
        /// Check the code.
        case allowed
        /// Refuse without checking: retry after this many seconds.
        case locked(retryAfterSeconds: Int)
    }

    /// What a wrong code did.
    struct WrongCode: Equatable, Sendable {
        /// Wrong codes left before the lock; 0 when this one locked the trip.
        var remaining: Int
        /// Set when this wrong code locked the trip: the lock's length in seconds.
        var lockedForSeconds: Int?
    }

    private struct Entry: Sendable {
        var wrongCodes = 0
        var locks = 0
        var lockedUntil: Int64 = .min
    }

    private var trips: [BookingID: Entry] = [:]

    /// Whether `trip` may try a code at `now` (Unix milliseconds).
    func check(_ trip: BookingID, now: Int64) -> Verdict {
        guard let entry = trips[trip], entry.lockedUntil > now else { return .allowed }
        return .locked(retryAfterSeconds: Int((entry.lockedUntil - now + 999) / 1000))
    }

    /// Counts a wrong code for `trip` at `now`.
    mutating func wrongCode(_ trip: BookingID, now: Int64) -> WrongCode {
        if trips[trip] == nil && trips.count >= maximumTrips {
            trips = trips.filter { $0.value.lockedUntil > now }
            if trips.count >= maximumTrips, let any = trips.keys.first { trips[any] = nil }
        }
        var entry = trips[trip] ?? Entry()
        entry.wrongCodes += 1
        var result = WrongCode(remaining: maximumWrongCodes - entry.wrongCodes, lockedForSeconds: nil)
        if entry.wrongCodes >= maximumWrongCodes {
            let length = min(longestLockMilliseconds, firstLockMilliseconds << min(entry.locks, 20))
            entry.locks += 1
            entry.wrongCodes = 0
            entry.lockedUntil = now + length
            result = WrongCode(remaining: 0, lockedForSeconds: Int(length / 1000))
        }
        trips[trip] = entry
        return result
    }

    /// A right code: `trip` is forgotten.
    mutating func succeeded(_ trip: BookingID) { trips[trip] = nil }

    /// Trips tracked.
    var count: Int { trips.count }
}
