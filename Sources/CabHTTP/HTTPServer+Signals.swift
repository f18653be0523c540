#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts from now on, so that they stay
    /// pending until `runUntilTerminated()` takes them with `sigwait`. Call it first thing in the process, before
    /// any thread exists: a signal that arrives during start-up is then never lost or fatal.
    public static func blockTerminationSignals() {
        var set = terminationSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Blocks the calling thread until SIGTERM or SIGINT arrives (`sigwait`), then shuts down gracefully and returns
    /// the signal number. Call `blockTerminationSignals()` at process start, then this after `start()`.
    @discardableResult
    public func runUntilTerminated() -> Int32 {
        var set = Self.terminationSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        shutdown()
        return received
    }

    private static var terminationSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }
}
