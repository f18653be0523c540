extension HTTPRequest {
    /// True when the request's `If-None-Match` names `etag` (or is `*`), so the client's copy is current and the
    /// answer is `304 Not Modified` (RFC 9110 §13.1.2: the weak comparison, `W/` ignored on either side).
    /// `etag` is the entity tag as sent in `ETag`, quotes included.
    public func ifNoneMatchIncludes(_ etag: String) -> Bool {
        guard let header = header("If-None-Match") else { return false }
        let wanted = Self.opaqueTag(Substring(etag))
        for candidate in header.split(separator: ",") {
            var tag = candidate
            while tag.first == " " || tag.first == "\t" { tag = tag.dropFirst() }
            while tag.last == " " || tag.last == "\t" { tag = tag.dropLast() }
            if tag == "*" || Self.opaqueTag(tag) == wanted { return true }
        }
        return false
    }

    /// An entity tag without its weakness prefix.
    private static func opaqueTag(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}

extension HTTPResponse {
    /// `304 Not Modified` for a conditional GET whose copy is current: no body, with the `ETag` and the other
    /// caching headers (`Cache-Control`) a `200` would have carried (RFC 9110 §15.4.5).
    public static func notModified(etag: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: 304, headers: [("ETag", etag)] + headers)
    }

    /// Adds `ETag` and `Cache-Control` to a response, for `notModified(etag:headers:)` to answer the next request.
    public func cacheable(etag: String, cacheControl: String) -> HTTPResponse {
        var response = self
        response.headers.append(("ETag", etag))
        response.headers.append(("Cache-Control", cacheControl))
        return response
    }
}
