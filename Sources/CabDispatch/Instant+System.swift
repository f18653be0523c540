import CabCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Instant {
    /// The wall-clock time now (`clock_gettime(CLOCK_REALTIME)`, plus `systemClockSkewMilliseconds`); the only
    /// place the API reads the real clock.
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(
            millisecondsSinceEpoch: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
                + systemClockSkewMilliseconds)
    }

    /// How far this process's wall clock is set off the true one, from `CAB_CLOCK_SKEW_MS` (0 when unset): a
    /// machine whose clock is set wrong, for the chaos run's third node (scripts/chaos-run.sh). The monotonic
    /// clock and the timers are left true, as on such a machine. (libfaketime, used before, also shifts the
    /// absolute timerfd deadlines libdispatch arms on the monotonic clock, so the node's timers fired at once and
    /// were armed again in a loop: 57 % of a core, 83 % of it in `timerfd_settime`.)
    public static let systemClockSkewMilliseconds: Int64 = {
        guard let text = getenv("CAB_CLOCK_SKEW_MS").map({ String(cString: $0) }), let value = Int64(text) else {
            return 0
        }
        return value
    }()
}
