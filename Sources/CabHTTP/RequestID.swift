import Synchronization

/// Request ids: a client's `X-Request-Id` is kept when it is short and plain, else one is generated.
enum RequestID {
    /// `candidate` if it is 1...128 characters of letters, digits and `-_.:`, else nil.
    static func accept(_ candidate: String?) -> String? {
        guard let candidate, (1...128).contains(candidate.utf8.count) else { return nil }
        let plain = candidate.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: ":"):
                true
            default: false
            }
        }
        return plain ? candidate : nil
    }

    /// 16 hexadecimal digits: a random start for this process plus a counter, so ids are unique within a run and
    /// unlikely to repeat across runs without a `getrandom` call per request.
    static func generate() -> String {
        let value = start &+ next.wrappingAdd(1, ordering: .relaxed).oldValue
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static let start = UInt64.random(in: .min ... .max)
    private static let next = Atomic<UInt64>(0)
}
