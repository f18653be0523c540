import Testing

@testable import CabZlib

/// gzip as HTTP's `Content-Encoding: gzip` sends it: one RFC 1952 member that zlib (and every browser) reads back.
@Suite struct GzipTests {
    static let feature = #"{"type":"Feature","id":42,"properties":{"kind":"road"},"coordinates":[[24.9,60.1]]}"#
    static let tile = Array(String(repeating: feature, count: 200).utf8)

    @Test func aMemberInflatesToTheInputAndIsSmaller() throws {
        let packed = Zlib.gzip(Self.tile)
        #expect(packed.count < Self.tile.count / 10)
        var out: [UInt8] = []
        let produced = try packed.withUnsafeBufferPointer {
            try Inflater(format: .gzip).inflate($0, into: &out, expectedSize: nil, limit: 1 << 20)
        }
        #expect(Array(out.prefix(produced)) == Self.tile)
    }

    /// RFC 1952: magic 1f 8b, method 8 (deflate); the trailer is the CRC-32 and the length, little-endian.
    @Test func theMemberHasGzipsHeaderAndTrailer() {
        let packed = Zlib.gzip(Self.tile, level: 9)
        #expect(Array(packed.prefix(3)) == [0x1f, 0x8b, 8])
        func little(_ at: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 | UInt32(packed[packed.count - 8 + at + $1]) << (8 * $1) }
        }
        #expect(little(0) == Zlib.crc32(Self.tile))
        #expect(little(4) == UInt32(Self.tile.count))
    }

    @Test func emptyInputIsAnEmptyMember() throws {
        let packed = Zlib.gzip([])
        #expect(packed.count >= 20)  // a 10-byte header, an empty block, the 8-byte trailer
        var out: [UInt8] = []
        let produced = try packed.withUnsafeBufferPointer {
            try Inflater(format: .gzip).inflate($0, into: &out, expectedSize: nil, limit: 1 << 10)
        }
        #expect(produced == 0)
    }

    /// The zlib format is not a gzip member: a gzip inflater refuses it rather than reading garbage.
    @Test func aGzipInflaterRefusesTheZlibFormat() {
        let zlib = Zlib.compress(Self.tile)
        var out: [UInt8] = []
        #expect(throws: Inflater.Failure.self) {
            try zlib.withUnsafeBufferPointer {
                try Inflater(format: .gzip).inflate($0, into: &out, expectedSize: nil, limit: 1 << 20)
            }
        }
    }
}
