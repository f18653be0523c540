/// What a stream has for the server when asked.
public enum StreamChunk: Sendable, Equatable {
    /// Bytes to send now.
    case data([UInt8])
    /// Nothing yet: the stream calls the waker it was given when it has more.
    case pending
    /// The stream is finished; the server completes the response.
    case end
}

/// A response body produced over time, pulled by the server (server-sent events).
///
/// The server never blocks a thread on a stream: when `next` answers `.pending`, the connection is parked until
/// the stream calls `waker`.
public protocol ResponseStream: AnyObject, Sendable {
    /// The next chunk. `waker` must be called (once, from any thread) when a `.pending` stream has more.
    func next(waker: @escaping @Sendable () -> Void) -> StreamChunk
    /// The client went away or the server is stopping; release resources.
    func close()
}
