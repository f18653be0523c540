/// Crockford's base32 in lower case (no `i`, `l`, `o`, `u`): identifiers that survive being read aloud,
/// retyped from a receipt or scanned from a QR code.
public enum Base32 {
    /// The 32 symbols, in value order.
    public static let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// Encodes `bytes` five bits at a time, most significant bit first; a final partial group is zero-padded.
    /// Ten bytes give exactly sixteen symbols.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var result: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                result.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: result, as: UTF8.self)
    }

    /// Normalises one symbol as Crockford allows (upper case, `i`/`l` as `1`, `o` as `0`); nil when not a symbol.
    public static func normalise(_ symbol: UInt8) -> UInt8? {
        var c = symbol
        if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") { c += 32 }
        switch c {
        case UInt8(ascii: "i"), UInt8(ascii: "l"): return UInt8(ascii: "1")
        case UInt8(ascii: "o"): return UInt8(ascii: "0")
        default: return alphabet.contains(c) ? c : nil
        }
    }
}
