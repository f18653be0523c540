import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPServer {
    /// Blocks the calling thread until SIGTERM or SIGINT arrives, then shuts down gracefully and returns the
    /// signal number. Call it after `start()`, from the executable's main thread.
    @discardableResult
    public func runUntilTerminated() -> Int32 {
        let received = DispatchSemaphore(value: 0)
        let signalNumber = SignalBox()
        let queue = DispatchQueue(label: "swiftcab.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)  // let the dispatch source see it instead of the default action (exit)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                signalNumber.value = number
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
        received.wait()
        for source in sources { source.cancel() }
        shutdown()
        for number in [SIGTERM, SIGINT] { signal(number, SIG_DFL) }
        return queue.sync { signalNumber.value }
    }
}

/// The signal received. `@unchecked Sendable`: written and read only on the signal queue.
private final class SignalBox: @unchecked Sendable {
    var value: Int32 = 0
}
