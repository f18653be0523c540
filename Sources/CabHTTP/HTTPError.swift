import Foundation

/// An error that is already an HTTP answer: rendered as `application/problem+json` (RFC 9457).
public struct HTTPError: Error, Sendable, Equatable {
    /// The status code, 4xx or 5xx.
    public var status: Int
    /// A short, constant summary of the problem type ("Invalid coordinate").
    public var title: String
    /// What went wrong with this request and what to fix.
    public var detail: String
    /// The machine-readable name of the problem type ("offer_not_open"; `ProblemType.code`).
    public var code: String
    /// A URI naming the problem type: `/problems/{code}` (`ProblemType.uri`).
    public var type: String
    /// Extra headers to send (e.g. `Retry-After`, `Allow`).
    public var headers: [String: String]
    /// Extra members of the problem document beside RFC 9457's (e.g. `current_state` of a refused trip event).
    public var members: [String: String]

    /// A problem of `type` with `detail` for this request.
    public init(_ type: ProblemType, detail: String, headers: [String: String] = [:], members: [String: String] = [:]) {
        self.init(
            status: type.status, title: type.title, detail: detail, code: type.code, headers: headers, members: members)
    }

    /// Creates a problem from its parts, for a problem type that is not a `ProblemType` constant (tests, and the
    /// API's catalogue when it builds one from its table).
    public init(
        status: Int, title: String, detail: String, code: String, headers: [String: String] = [:],
        members: [String: String] = [:]
    ) {
        self.status = status
        self.title = title
        self.detail = detail
        self.code = code
        self.type = ProblemType.uri(forCode: code)
        self.headers = headers
        self.members = members
    }

    /// 404 with `detail`.
    public static func notFound(_ detail: String) -> HTTPError { HTTPError(.notFound, detail: detail) }

    /// The members RFC 9457 and this catalogue define; `members` cannot override them.
    static let documentMembers: Set<String> = ["type", "title", "status", "detail", "code"]

    /// The problem document as a response.
    public func response(requestID: String?) -> HTTPResponse {
        // Written by hand, keys sorted as `JSONSerialization`'s `.sortedKeys` wrote them: under a trip load lost
        // races answer 409 often enough that `JSONSerialization` was 5 % of the server's CPU.
        var strings = members.filter { !Self.documentMembers.contains($0.key) }
        strings["type"] = type
        strings["title"] = title
        strings["detail"] = detail
        strings["code"] = code
        if let requestID { strings["request_id"] = requestID }
        var data: [UInt8] = [UInt8(ascii: "{")]
        data.reserveCapacity(96 + detail.utf8.count + title.utf8.count)
        for (index, key) in (Array(strings.keys) + ["status"]).sorted().enumerated() {
            if index > 0 { data.append(UInt8(ascii: ",")) }
            JSONString.append(key, to: &data)
            data.append(UInt8(ascii: ":"))
            if let value = strings[key] { JSONString.append(value, to: &data) } else { data += String(status).utf8 }
        }
        data.append(UInt8(ascii: "}"))
        var response = HTTPResponse.bytes(data, contentType: "application/problem+json", status: status)
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }
}
