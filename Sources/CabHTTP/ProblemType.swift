/// A kind of problem a client can get (RFC 9457): a stable machine-readable `code`, the status it answers with
/// and a constant title. The problem document's `type` is the URI `/problems/{code}`, relative to the server, where
/// the API describes it.
///
/// The HTTP layer's own problems are below (`httpProblems`); the API adds its own catalogue beside them.
public struct ProblemType: Hashable, Sendable {
    /// The stable, machine-readable name ("offer_not_open"): lowercase ASCII letters, digits and underscores.
    public let code: String
    /// The HTTP status, 4xx or 5xx.
    public let status: Int
    /// A short, constant summary ("No open offer").
    public let title: String
    /// When a client meets it and what to do, for the catalogue and the API documentation.
    public let summary: String

    /// Creates a problem type.
    public init(_ code: String, status: Int, title: String, summary: String) {
        precondition((400...599).contains(status), "a problem is a 4xx or 5xx answer")
        precondition(
            !code.isEmpty && code.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 },
            "a problem code is snake_case ASCII")
        self.code = code
        self.status = status
        self.title = title
        self.summary = summary
    }

    /// The problem document's `type`: `/problems/{code}`.
    public var uri: String { Self.uri(forCode: code) }

    /// The `type` URI of a problem code.
    public static func uri(forCode code: String) -> String { "/problems/\(code)" }

    /// This problem with `detail` for one request, and extra headers (`Retry-After`, `Allow`).
    public func error(_ detail: String, headers: [String: String] = [:]) -> HTTPError {
        HTTPError(self, detail: detail, headers: headers)
    }

    // MARK: The HTTP layer's problems

    /// The request is malformed in a way the HTTP layer sees (no Host header).
    public static let badRequest = ProblemType(
        "bad_request", status: 400, title: "Bad Request", summary: "The request is not valid HTTP for this server.")
    /// The body is not the JSON the operation takes.
    public static let malformedJSON = ProblemType(
        "malformed_json", status: 400, title: "Malformed JSON",
        summary: "The body is empty, not JSON, or a field is missing, null or of the wrong type; the detail names it.")
    /// A JSON field is outside its allowed range.
    public static let valueOutOfRange = ProblemType(
        "value_out_of_range", status: 400, title: "Value out of range",
        summary: "A field of the body is outside the range the operation allows; the detail gives it.")
    /// No route or file at the path.
    public static let notFound = ProblemType(
        "not_found", status: 404, title: "Not Found", summary: "Nothing is at this path, or nothing you may see.")
    /// The path exists with other methods.
    public static let methodNotAllowed = ProblemType(
        "method_not_allowed", status: 405, title: "Method Not Allowed",
        summary: "The path takes other methods; the `Allow` header lists them.")
    /// The body is larger than the server reads.
    public static let contentTooLarge = ProblemType(
        "content_too_large", status: 413, title: "Content Too Large",
        summary: "The body is larger than the server reads.")
    /// The request target is longer than the server reads.
    public static let uriTooLong = ProblemType(
        "uri_too_long", status: 414, title: "URI Too Long",
        summary: "The request target is longer than the server reads; send long inputs in a POST body.")
    /// The query has more parameters than the server reads.
    public static let tooManyQueryParameters = ProblemType(
        "too_many_query_parameters", status: 414, title: "Too many query parameters",
        summary: "The query has more parameters than the server reads; send only those the operation documents.")
    /// The headers are larger than the server reads.
    public static let headersTooLarge = ProblemType(
        "request_header_fields_too_large", status: 431, title: "Request Header Fields Too Large",
        summary: "The request's headers are larger than the server reads; send fewer or shorter headers.")
    /// The server failed; the request id identifies the failure in its log.
    public static let internalError = ProblemType(
        "internal_server_error", status: 500, title: "Internal Server Error",
        summary: "The server failed to handle the request; quote the request id when reporting it.")

    /// Every handler thread is busy and the queue of waiting requests is full (nothing was done).
    public static let serverBusy = ProblemType(
        "server_busy", status: 503, title: "Server busy",
        summary:
            "Every handler thread is busy and the queue is full; nothing was done: retry after `Retry-After` seconds.")
    /// The server is stopping and did not run, or finish answering, the request.
    public static let serverStopping = ProblemType(
        "server_stopping", status: 503, title: "Server stopping",
        summary: "The server is shutting down; retry (a write may or may not have been made: repeat it with the same "
            + "Idempotency-Key).")

    /// Every problem the HTTP layer answers by itself.
    public static let httpProblems: [ProblemType] = [
        .badRequest, .malformedJSON, .valueOutOfRange, .notFound, .methodNotAllowed, .contentTooLarge, .uriTooLong,
        .tooManyQueryParameters, .headersTooLarge, .internalError, .serverBusy, .serverStopping,
    ]
}
