import CMicroHTTPD
import Synchronization

/// Connects one `ResponseStream` to its libmicrohttpd connection: pulls chunks when libmicrohttpd asks, parks
/// the connection (`MHD_suspend_connection`) while the stream is pending, and resumes it
/// (`MHD_resume_connection`) when the stream's waker fires.
///
/// `@unchecked Sendable`: the waker runs on any thread; `state` (a `Mutex`) guards the suspend/resume hand-over
/// and whether the connection still exists. `leftover` and `bytesSent` are touched only by the connection's
/// worker thread (reader and free callbacks).
final class StreamContext: @unchecked Sendable {
    let stream: any ResponseStream
    private let connection: OpaquePointer
    private weak var server: HTTPServer?
    private let state = Mutex(State())
    private var leftover: ArraySlice<UInt8> = []
    private(set) var bytesSent = 0

    private struct State {
        var suspended = false
        /// The waker fired while `next` was running: ask again instead of suspending.
        var wakeRequested = false
        /// The server is stopping: end the response at the next read.
        var ending = false
        /// libmicrohttpd freed the response; the connection must not be touched.
        var freed = false
    }

    init(stream: any ResponseStream, connection: OpaquePointer, server: HTTPServer) {
        self.stream = stream
        self.connection = connection
        self.server = server
    }

    /// Fills `buffer`; returns the byte count, 0 after suspending, or end of stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            if !leftover.isEmpty { return copy(into: buffer) }
            if state.withLock({ $0.ending }) { return cab_mhd_end_of_stream() }
            let waker: @Sendable () -> Void = { [self] in wake() }
            switch stream.next(waker: waker) {
            case .data(let bytes):
                leftover = bytes[...]
            case .end:
                return cab_mhd_end_of_stream()
            case .pending:
                let parked: Bool = state.withLock { state in
                    if state.ending { return false }
                    if state.wakeRequested {
                        state.wakeRequested = false
                        return false
                    }
                    state.suspended = true
                    MHD_suspend_connection(connection)
                    return true
                }
                if parked { return 0 }
            }
        }
    }

    private func copy(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, leftover.count)
        leftover.prefix(count).withUnsafeBytes { buffer.copyMemory(from: $0) }
        leftover = leftover.dropFirst(count)
        if leftover.isEmpty { leftover = [] }
        bytesSent += count
        return count
    }

    /// The stream has more (any thread).
    func wake() {
        state.withLock { state in
            guard !state.freed else { return }
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            } else {
                state.wakeRequested = true
            }
        }
    }

    /// The server is stopping: end the response even if the stream would go on.
    func endForShutdown() {
        state.withLock { state in
            guard !state.freed else { return }
            state.ending = true
            if state.suspended {
                state.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// libmicrohttpd is done with the response (sent, client gone, server stopped).
    func responseFreed() {
        state.withLock { $0.freed = true }
        stream.close()
        _ = server?.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }
}
