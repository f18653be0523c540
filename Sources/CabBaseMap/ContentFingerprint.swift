/// A 64-bit FNV-1a hash of text, fed piece by piece: the base map's content fingerprint (`BaseMapWriter` writes
/// it, `BaseMapIndex.contentFingerprint` reads it, tile `ETag`s carry it).
struct ContentFingerprint {
    /// The hash so far.
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds `text`, then a separator byte, so that ("ab", "c") and ("a", "bc") differ.
    /// - Complexity: O(bytes).
    mutating func add(_ text: String) {
        var hash = value
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = (hash ^ 0x1f) &* 0x0000_0100_0000_01b3
    }
}
