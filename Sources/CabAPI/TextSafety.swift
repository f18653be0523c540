import CabHTTP

extension BookingRequestBodies {
    /// Refuses text that would change how other people's screens and logs show it: control characters (NUL,
    /// ESC, CR, LF, tab, DEL, the C1 range) and the bidirectional embeddings, overrides and isolates that can
    /// make a plate read backwards (U+202A...U+202E, U+2066...U+2069, and the marks U+200E, U+200F, U+061C).
    static func refuseControlCharacters(_ text: String, _ field: String) throws(HTTPError) {
        for scalar in text.unicodeScalars where isUnsafe(scalar) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            throw ProblemType.invalidValue.error(
                "'\(field)' contains the invisible character U+\(padded) (a control or text-direction character); "
                    + "send plain text without it.")
        }
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }
}
