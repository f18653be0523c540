import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `text/event-stream` reader over `URLSession` (what a driver app does with `GET /v1/driver/stream`): the
/// events arrive on an `AsyncThrowingStream` as they are parsed; ending the iteration cancels the request.
final class EventStreamClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `parser` and `continuation` are behind `Mutex`es; the rest is set once in init.
    private let parser = Mutex(SSEEventParser())
    private let continuation: AsyncThrowingStream<SSEEvent, any Error>.Continuation

    private init(_ continuation: AsyncThrowingStream<SSEEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Opens `url` with the bearer `token`; the stream ends when the server closes it (or fails on a non-200).
    /// At most `bufferedEvents` unread events are kept (the oldest go first).
    static func events(url: URL, token: String, bufferedEvents: Int = 256) -> AsyncThrowingStream<SSEEvent, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(bufferedEvents)) { continuation in
            let reader = EventStreamClient(continuation)
            let configuration = URLSessionConfiguration.default
            configuration.timeoutIntervalForRequest = 120  // idle time between bytes; the server sends heartbeats
            configuration.timeoutIntervalForResource = 7 * 24 * 3600
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
            var request = URLRequest(url: url)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let code = (response as? HTTPURLResponse)?.statusCode ?? 0
        if code != 200 {
            continuation.finish(throwing: BenchError("the event stream answered \(code)"))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            let events = try parser.withLock { parser throws(BenchError) in try parser.feed(data) }
            for event in events { continuation.yield(event) }
        } catch {
            continuation.finish(throwing: error)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
        session.finishTasksAndInvalidate()
    }
}
