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
/// The closure given to `complete` runs exactly once, with the same error mapping as a handler: on a thread of the
/// server's handler pool (or, with no pool, on the epoll thread when the connection is resumed), or when the
/// request ends without an answer (the client went away), or on a background queue if it completes after the
/// request ended (the server stopped) — so work in it, such as notifying dispatch of a new booking, is never lost.
///
/// It is also the server's one way of parking a request: a request whose handler runs on the pool waits parked
/// on a `DeferredResponse` the server makes, completed with the handler's response (`HTTPServer+Dispatch`).
public final class DeferredResponse: @unchecked Sendable {
    // @unchecked Sendable: `state` (a `Mutex`) guards everything, including the suspend/resume hand-over.
    public typealias Make = @Sendable () throws -> HTTPResponse

    private struct State {
        var make: Make?
        var connection: ConnectionHandle?
        var suspended = false
        /// Set by `forward(_:)`: the completed closure goes there instead of resuming a connection.
        var forwarder: (@Sendable (@escaping Make) -> Void)?
        /// The server is stopping: the connection was resumed without an answer (`abandonForShutdown()`).
        var abandoned = false
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
        enum Next {
            case nothing
            case forward(@Sendable (@escaping Make) -> Void)
            case runLate
        }
        let next: Next = state.withLock { s in
            guard s.make == nil, !s.ran else { return .nothing }
            if let forwarder = s.forwarder {
                s.ran = true
                s.forwarder = nil
                return .forward(forwarder)
            }
            if s.ended {
                s.ran = true
                return .runLate
            }
            s.make = make
            if s.suspended, let connection = s.connection {
                s.suspended = false
                MHD_resume_connection(connection.pointer)
            }
            return .nothing
        }
        completed.signal()
        switch next {
        case .nothing: break
        case .forward(let forwarder): forwarder(make)
        // The request already ended (the server stopped while it waited): run it for its effects, on a queue of
        // its own rather than the completing thread (a store's writer must not run work that may write).
        case .runLate: DispatchQueue.global().async { _ = try? make() }
        }
    }

    /// Blocks until `complete` is called, then runs its closure on this thread: for callers that run handlers
    /// in process without a server (tests). Call it at most once, and not for a response a server is sending.
    public func wait() throws -> HTTPResponse {
        completed.wait()
        guard let make = take() else { preconditionFailure("a deferred response was waited for twice") }
        return try make()
    }

    /// Sends the completed closure to `forwarder` instead of resuming a connection (at once if it is already
    /// complete): how the handler pool runs a handler's deferred response on a pool thread.
    func forward(_ forwarder: @escaping @Sendable (@escaping Make) -> Void) {
        let ready: Make? = state.withLock { s in
            guard !s.ran else { return nil }
            if let make = s.make {
                s.ran = true
                s.make = nil
                return make
            }
            s.forwarder = forwarder
            return nil
        }
        if let ready { forwarder(ready) }
    }

    /// Epoll thread, right after the handler returned (or its job was queued): parks `connection` unless the
    /// response is already complete or the server is stopping. True when parked.
    func park(_ connection: OpaquePointer) -> Bool {
        state.withLock { s in
            if s.make != nil || s.abandoned { return false }
            s.connection = ConnectionHandle(pointer: connection)
            s.suspended = true
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// The server is stopping and cannot wait for this response any longer: resumes the parked connection so that
    /// libmicrohttpd may stop (it must not stop with suspended connections); the server answers it 503. A later
    /// `complete` still runs its closure, for its effects, once the request has ended.
    func abandonForShutdown() {
        state.withLock { s in
            guard !s.ended else { return }
            s.abandoned = true
            if s.suspended, let connection = s.connection {
                s.suspended = false
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    /// Whether `abandonForShutdown()` was called.
    var isAbandoned: Bool { state.withLock { $0.abandoned } }

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
