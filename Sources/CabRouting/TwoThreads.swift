#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs two pieces of preprocessing at the same time: one on a thread of its own (`pthread_create`), one on the
/// caller's. Preprocessing uses it for the two directions of the precomputed climbs (`LabelClimbs`), which share
/// nothing but the finished labels. A plain thread rather than a task: preprocessing is synchronous, runs once per
/// import and must not hold a thread of the cooperative pool for seconds.
enum TwoThreads {
    /// The closure a started thread runs (passed through `Unmanaged`).
    private final class Job: @unchecked Sendable {
        // `@unchecked Sendable`: `body` is set before the thread starts and read by that thread only.
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `first` on a new thread and `second` on this one and returns true when both have finished; returns
    /// false, having run neither, when no thread can be started (the caller then does the work on one thread).
    static func run(_ first: @escaping @Sendable () -> Void, _ second: () -> Void) -> Bool {
        let job = Unmanaged.passRetained(Job(first))
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let started = pthread_create(
            &thread, nil,
            { context in
                #if canImport(Darwin)
                    let job = Unmanaged<Job>.fromOpaque(context).takeRetainedValue()
                #else
                    let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                #endif
                job.body()
                return nil
            }, job.toOpaque())
        guard started == 0 else {
            job.release()
            return false
        }
        second()
        #if canImport(Darwin)
            pthread_join(thread!, nil)
        #else
            pthread_join(thread, nil)
        #endif
        return true
    }
}
