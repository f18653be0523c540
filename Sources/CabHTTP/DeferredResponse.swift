import CMicroHTTPD
import Dispatch
import Synchronization

/// A response another thread finishes later — typically a store write's completion after its group commit — while
/// the connection is parked (`MHD_suspend_connection`) instead of holding a worker thread. A handler returns
/// `HTTPResponse.deferred(pending)` and hands `pending` to whoever will call `complete(_:)`:
///
/// ```swift
/// let pending = DeferredResponse()
/// store.create(booking) { result in pending.complete { try respond(to: result.get()) } }
/// return .deferred(pending)
/// ```
///
/// The closure given to `complete` runs exactly once, with the same error mapping as a handler: on a server worker
/// thread when the connection is resumed (`MHD_resume_connection`) or when the request ends without an answer
/// (the client went away), or on a background queue if it completes after the request ended (the server
/// stopped) — so work in it, such as notifying dispatch of a new booking, is never lost.
public final class DeferredResponse: @unchecked Sendable {
    // @unchecked Sendable: `state` (a `Mutex`) guards everything, including the suspend/resume hand-over.
    public typealias Make = @Sendable () throws -> HTTPResponse

    private struct State {
        var make: Make?
        var connection: ConnectionHandle?
        var suspended = false
        /// The request is over: the connection must not be touched; a late `make` runs at once.
        var ended = false
        var ran = false
    }

    private let state = Mutex(State())
    private let completed = DispatchSemaphore(value: 0)

    /// A response not yet completed.
    public init() {}

    /// Completes the response with `make` (any thread; the first call wins, later ones are ignored).
    public func complete(_ make: @escaping Make) {
        let runNow: Make? = state.withLock { s in
            guard s.make == nil, !s.ran else { return nil }
            if s.ended {
                s.ran = true
                return make
            }
            s.make = make
            if s.suspended, let connection = s.connection {
                s.suspended = false
                MHD_resume_connection(connection.pointer)
            }
            return nil
        }
        completed.signal()
        // The request already ended (the server stopped while it waited): run it for its effects, on a queue of
        // its own rather than the completing thread (a store's writer must not run work that may write).
        if let runNow { DispatchQueue.global().async { _ = try? runNow() } }
    }

    /// Blocks until `complete` is called, then runs its closure on this thread: for callers that run handlers
    /// in process without a server (tests). Call it at most once, and not for a response a server is sending.
    public func wait() throws -> HTTPResponse {
        completed.wait()
        guard let make = take() else { preconditionFailure("a deferred response was waited for twice") }
        return try make()
    }

    /// Worker thread, right after the handler returned: parks `connection` unless the response is already
    /// complete. True when parked.
    func park(_ connection: OpaquePointer) -> Bool {
        state.withLock { s in
            if s.make != nil { return false }
            s.connection = ConnectionHandle(pointer: connection)
            s.suspended = true
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// Worker thread: the completed closure, taken once; nil while not complete.
    func take() -> Make? {
        state.withLock { s in
            guard let make = s.make, !s.ran else { return nil }
            s.ran = true
            s.make = nil
            return make
        }
    }

    /// The request is over: returns the closure if it was completed but never ran; a later `complete` runs at once.
    func end() -> Make? {
        state.withLock { s in
            s.ended = true
            s.suspended = false
            guard let make = s.make, !s.ran else { return nil }
            s.ran = true
            s.make = nil
            return make
        }
    }
}

/// A libmicrohttpd connection pointer kept for resuming. `@unchecked Sendable`: `MHD_resume_connection` may be
/// called from any thread, and the pointer is used only while the request is alive (guarded by `ended`).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
