import Foundation

/// A response: a status, headers and either bytes or a stream the server pulls from.
public struct HTTPResponse: Sendable {
    /// What the body is.
    public enum Body: Sendable {
        /// A complete body.
        case bytes([UInt8])
        /// A body produced over time (server-sent events); the server pulls chunks without holding a thread.
        case stream(any ResponseStream)
        /// A response completed later by another thread; the connection waits parked, holding no thread.
        case deferred(DeferredResponse)
    }

    /// The status code.
    public var status: Int
    /// Headers in order; `Content-Length` is set by the server.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// A response with `bytes` of type `contentType`.
    public static func bytes(_ bytes: [UInt8], contentType: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(bytes))
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        bytes(Array(text.utf8), contentType: contentType, status: status)
    }

    /// A JSON response of `value` (snake_case keys are the caller's choice through `CodingKeys`).
    public static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        do {
            let data = try JSONCoding.encoder.encode(value)
            return bytes(Array(data), contentType: "application/json", status: status)
        } catch {
            return HTTPError(.internalError, detail: "The response could not be encoded.")
                .response(requestID: nil)
        }
    }

    /// A response that `pending.complete(_:)` will finish (see `DeferredResponse`).
    public static func deferred(_ pending: DeferredResponse) -> HTTPResponse {
        HTTPResponse(status: 0, body: .deferred(pending))
    }

    /// An empty `204 No Content`.
    public static let noContent = HTTPResponse(status: 204)
}

/// The JSON coders every SwiftCab endpoint uses: sorted keys, ISO 8601 dates, no escaped slashes.
public enum JSONCoding {
    /// The encoder.
    public static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    /// The decoder.
    public static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }
}
