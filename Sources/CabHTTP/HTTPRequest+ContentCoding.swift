extension HTTPRequest {
    /// True when the request's `Accept-Encoding` allows the content coding `coding` (e.g. "gzip"): it names it (or,
    /// for gzip, "x-gzip") with a nonzero `q`, or names none of those and allows `*` (RFC 9110 §12.5.3). Without
    /// the header no coding is assumed acceptable: the identity is sent.
    public func acceptsEncoding(_ coding: String) -> Bool {
        guard let header = header("Accept-Encoding") else { return false }
        let wanted = coding.lowercased()
        let aliases: Set<Substring> = wanted == "gzip" ? ["gzip", "x-gzip"] : [Substring(wanted)]
        var named: Bool?
        var wildcard: Bool?
        for item in header.lowercased().split(separator: ",") {
            let fields = item.split(separator: ";")
            guard let first = fields.first else { continue }
            let name = Self.trimmed(first)
            var weight = 1.0
            for parameter in fields.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, Self.trimmed(pair[0]) == "q" else { continue }
                // An unreadable weight counts as 0: a client that sends one did not plainly ask for the coding.
                weight = Double(Self.trimmed(pair[1])) ?? 0
            }
            if aliases.contains(name) {
                named = (named ?? false) || weight > 0
            } else if name == "*" {
                wildcard = weight > 0
            }
        }
        return named ?? wildcard ?? false
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
