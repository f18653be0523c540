import Foundation

/// An error that is already an HTTP answer: rendered as `application/problem+json` (RFC 9457).
public struct HTTPError: Error, Sendable, Equatable {
    /// The status code, 4xx or 5xx.
    public var status: Int
    /// A short, constant summary of the problem type ("Invalid coordinate").
    public var title: String
    /// What went wrong with this request and what to fix.
    public var detail: String
    /// A URI naming the problem type; "about:blank" when the status says it all.
    public var type: String
    /// Extra headers to send (e.g. `Retry-After`, `Allow`).
    public var headers: [String: String]
    /// A machine-readable code (`server_busy`), sent as the `code` member when set.
    public var code: String?

    /// Creates a problem.
    public init(
        status: Int, title: String, detail: String, type: String = "about:blank", headers: [String: String] = [:],
        code: String? = nil
    ) {
        self.code = code
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type
        self.headers = headers
    }

    /// 400 with `detail`.
    public static func badRequest(_ detail: String, title: String = "Bad Request") -> HTTPError {
        HTTPError(status: 400, title: title, detail: detail)
    }

    /// 404 with `detail`.
    public static func notFound(_ detail: String) -> HTTPError {
        HTTPError(status: 404, title: "Not Found", detail: detail)
    }

    /// The problem document as a response.
    public func response(requestID: String?) -> HTTPResponse {
        var object: [String: Any] = ["type": type, "title": title, "status": status, "detail": detail]
        if let requestID { object["request_id"] = requestID }
        if let code { object["code"] = code }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{\"status\":\(status)}".utf8)
        var response = HTTPResponse.bytes(Array(data), contentType: "application/problem+json", status: status)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }
}
