/// One direction's hub-label entries, hub and duration packed in 6 bytes each (the scans read nothing else).
///
/// A many-to-one at metro size is bound by the label bytes it reads from places no cache holds (about 175 entries
/// per driver at N=700), so the entries are as small as the labels allow: the hub as its offset above the lowest
/// labelled rank in 20 bits (labels never cover more than ~1 M ranks: `maxHubOffset`), the duration from the
/// label's node to the hub in 28 bits (74 hours: `maxDuration`). Entry `e` is the low 48 bits of the little-endian
/// 8 bytes at byte `6e`: duration in bits 0-27, hub offset in bits 28-47. One padding entry of zeros follows the
/// last, so that the 8-byte load of any entry stays inside the buffer. The lengths, read only for the one best
/// entry of a query, stay 4-byte floats beside (`HubLabels.Direction.length`).
struct LabelEntries: Sendable {
    /// The largest hub offset above the lowest labelled rank that an entry holds.
    static let maxHubOffset = (1 << 20) - 1
    /// The largest duration (milliseconds) that an entry holds.
    static let maxDuration: UInt32 = (1 << 28) - 1
    /// Entries per 64-byte cache line, rounded down (for touching a label ahead of its scan).
    static let perCacheLine = 10

    /// Three 16-bit words per entry, then the padding entry.
    let words: ContractionBuffer<UInt16>
    /// The lowest labelled rank: hub offsets count from it.
    let lowest: Int32

    /// Entries (the padding one not counted).
    var count: Int { words.count / 3 - 1 }

    /// Entries over `words` as written by `init(hubs:durations:count:lowest:)` (or read back from a file).
    /// - Precondition: `words` holds whole entries and the padding entry.
    init(words: ContractionBuffer<UInt16>, lowest: Int32) {
        precondition(words.count >= 3 && words.count % 3 == 0, "label entries without their padding entry")
        self.words = words
        self.lowest = lowest
    }

    /// Packs `count` entries from `entry(i)`, which returns entry `i`'s hub rank and duration.
    /// - Precondition: every hub is in `lowest...lowest + maxHubOffset` and every duration at most `maxDuration`.
    init(count: Int, lowest: Int32, entry: (Int) -> (hub: Int32, duration: UInt32)) {
        self.init(uninitializedCount: count, lowest: lowest)
        for i in 0..<count {
            let (hub, duration) = entry(i)
            store(i, hub: hub, duration: duration)
        }
    }

    /// Room for `count` entries, to be written with `store(_:hub:duration:)` in increasing order; the padding entry
    /// is zeroed.
    init(uninitializedCount count: Int, lowest: Int32) {
        let words = ContractionBuffer<UInt16>(uninitializedCount: 3 * (count + 1))
        for k in 0..<3 { words[3 * count + k] = 0 }
        self.init(words: words, lowest: lowest)
    }

    /// Writes entry `e`. Entries are written in increasing order: the 8-byte store also writes (zeros into) the
    /// next entry's first two bytes, which that entry's own store then sets.
    /// - Precondition: `hub` is in `lowest...lowest + maxHubOffset` and `duration` at most `maxDuration`.
    @inline(__always) func store(_ e: Int, hub: Int32, duration: UInt32) {
        let offset = Int(hub) - Int(lowest)
        precondition(
            offset >= 0 && offset <= Self.maxHubOffset && duration <= Self.maxDuration, "label entry out of range")
        let packed = UInt64(duration) | UInt64(offset) << 28
        UnsafeMutableRawPointer(words.base).storeBytes(of: packed.littleEndian, toByteOffset: 6 &* e, as: UInt64.self)
    }

    /// The hubs, as rank per entry (a view for the query loops: no bounds checks).
    var hub: Hubs { Hubs(base: UnsafeRawPointer(words.base), lowest: lowest) }
    /// The durations (milliseconds) per entry (a view for the query loops: no bounds checks).
    var duration: Durations { Durations(base: UnsafeRawPointer(words.base)) }

    /// The hub ranks of packed entries; `hub[e]` and `duration[e]` of the same `e` read the same 8 bytes.
    struct Hubs {
        let base: UnsafeRawPointer
        let lowest: Int32

        /// The hub rank of entry `e` (unchecked).
        @inline(__always) subscript(e: Int) -> Int32 {
            let packed = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 6 &* e, as: UInt64.self))
            return Int32(truncatingIfNeeded: (packed >> 28) & 0xF_FFFF) &+ lowest
        }
    }

    /// The durations of packed entries.
    struct Durations {
        let base: UnsafeRawPointer

        /// The duration (milliseconds) of entry `e` (unchecked).
        @inline(__always) subscript(e: Int) -> UInt32 {
            let packed = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 6 &* e, as: UInt64.self))
            return UInt32(truncatingIfNeeded: packed) & 0x0FFF_FFFF
        }
    }
}
