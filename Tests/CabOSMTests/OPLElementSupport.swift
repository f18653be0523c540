import CabOSM

/// One line of osmium's OPL output (`-f opl,add_metadata=false`), parsed for comparison with the reader.
///
/// `n1 Tk=v x9.5 y47.1`, `w2 Tk=v Nn1,n2`, `r3 Tk=v Mn1@role,w2@`; keys, values and roles escape
/// characters as `%hex%` code points.
struct OPLElement {
    var type: OSMElementType
    var id: Int64
    var tags: [String: String] = [:]
    /// Longitude and latitude in 1e-7 degrees (OPL prints 7 decimals).
    var fixedLongitude: Int64?
    var fixedLatitude: Int64?
    var nodeIDs: [Int64] = []
    var members: [OSMMember] = []

    init?(_ line: Substring) {
        let fields = line.split(separator: " ")
        guard let first = fields.first, let kind = first.first, let id = Int64(first.dropFirst()) else { return nil }
        switch kind {
        case "n": type = .node
        case "w": type = .way
        case "r": type = .relation
        default: return nil
        }
        self.id = id
        for field in fields.dropFirst() {
            let body = field.dropFirst()
            switch field.first {
            case "T":
                for pair in body.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    tags[Self.unescape(parts[0])] = Self.unescape(parts.count > 1 ? parts[1] : "")
                }
            case "x": fixedLongitude = Self.fixed(body)
            case "y": fixedLatitude = Self.fixed(body)
            case "N": nodeIDs = body.split(separator: ",").compactMap { Int64($0.dropFirst()) }
            case "M":
                members = body.split(separator: ",").map { member in
                    let at = member.firstIndex(of: "@")!
                    let type: OSMElementType = member.first == "n" ? .node : member.first == "w" ? .way : .relation
                    let ref = Int64(member[member.index(after: member.startIndex)..<at])!
                    return OSMMember(type: type, ref: ref, role: Self.unescape(member[member.index(after: at)...]))
                }
            default: break
            }
        }
    }

    /// Degrees as printed ("9.5090069", "-0.5") to 1e-7 units, exactly; nil if it is not a number.
    static func fixed(_ text: Substring) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text
        let dot = digits.firstIndex(of: ".") ?? digits.endIndex
        var fraction = dot < digits.endIndex ? String(digits[digits.index(after: dot)...]) : ""
        guard fraction.count <= 7 else { return nil }
        fraction += String(repeating: "0", count: 7 - fraction.count)
        guard let whole = Int64(digits[..<dot]), let part = Int64(fraction) else { return nil }
        return (negative ? -1 : 1) * (whole * 10_000_000 + part)
    }

    /// A coordinate in degrees to 1e-7 units, rounded as OPL prints it.
    static func fixed(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded()) }

    /// Undoes OPL's `%hex%` escapes.
    static func unescape(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        var result = ""
        var rest = text[...]
        while let start = rest.firstIndex(of: "%") {
            result += rest[..<start]
            let afterStart = rest.index(after: start)
            let end = rest[afterStart...].firstIndex(of: "%")!
            result.unicodeScalars.append(Unicode.Scalar(UInt32(rest[afterStart..<end], radix: 16)!)!)
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
