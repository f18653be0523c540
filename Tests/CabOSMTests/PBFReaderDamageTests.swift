import CabGeo
import CabTestSupport
import Foundation
import Testing

@testable import CabOSM

/// Seeded damage to a real extract: truncated and bit-flipped copies either read or throw an `OSMError`
/// naming a byte offset; none crashes, traps or hangs.
@Suite struct PBFReaderDamageTests {
    static let source = TestData.sharedExtract("helsinki")

    /// An uncompressed copy (osmium, raw blobs), so flipped bits reach the protobuf decoder past zlib's checksum.
    static let uncompressedCopy = Result { () throws -> URL in
        let url = try TestData.temporaryDirectory("osm-raw").appendingPathComponent("helsinki-raw.osm.pbf")
        try Osmium.writeUncompressedCopy(of: source, to: url)
        return url
    }

    /// Where each blob ends in `file`: the only places a cut leaves a readable (shorter) file.
    static func blobEnds(_ file: URL) throws -> [Int] {
        let stream = BlobStream(file: try PBFFile(path: file.path), offset: 0)
        var ends: [Int] = []
        while let frame = try stream.next() { ends.append(frame.end) }
        return ends
    }

    /// A small seeded generator (SplitMix64), so every failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Reads `bytes` from a temporary file: the summary, or the `OSMError` it threw (anything else fails).
    static func read(_ bytes: [UInt8]) throws -> Result<PBFReadSummary, OSMError> {
        try PBFReaderHandBuiltTests.withFile(bytes) { path in
            do {
                var counter = ElementCounter()
                return .success(try PBFReader(path: path).read(into: &counter))
            } catch let error as OSMError {
                return .failure(error)
            }
        }
    }

    /// Cuts at seeded offsets, plus just around the first blob boundaries.
    static let cuts: [Int] = {
        var generator = SeededGenerator(state: 2024)
        let size = 685_110
        let random = (0..<10).map { _ in Int.random(in: 1..<size, using: &generator) }
        return [1, 3, 4, 5, 13, 14, 100] + random + [size - 1]
    }()

    @Test(arguments: cuts)
    func truncatedCopyIsATruncationError(at cut: Int) throws {
        let bytes = try Array(Data(contentsOf: Self.source).prefix(cut))
        let ends = try Self.blobEnds(Self.source)
        let lastWholeBlobEnd = ends.last { $0 <= cut } ?? 0
        switch try Self.read(bytes) {
        case .success:
            #expect(ends.contains(cut), "a cut inside a blob at \(cut) read without error")
        case .failure(let error):
            #expect(!ends.contains(cut))
            #expect(error.code == .truncated, "\(error.message)")
            let offset = try #require(error.byteOffset)
            #expect((lastWholeBlobEnd...cut).contains(offset), "\(error.message)")
            #expect(error.message.contains("at byte \(offset)"))
        }
    }

    @Test func cutsAtBlobBoundariesReadFewerElements() throws {
        let data = try Data(contentsOf: Self.source)
        let ends = try Self.blobEnds(Self.source)
        let full = try Self.read(Array(data)).get()
        let half = try Self.read(Array(data.prefix(ends[ends.count / 2]))).get()
        #expect(half.nodes + half.ways + half.relations < full.nodes + full.ways + full.relations)
        #expect(half.blobs == ends.count / 2)
    }

    @Test(arguments: 0..<12)
    func bitFlippedCompressedCopyReadsOrFailsCleanly(seed: Int) throws {
        try Self.flipAndRead(Self.source, seed: UInt64(seed))
    }

    @Test(arguments: 0..<24)
    func bitFlippedUncompressedCopyReadsOrFailsCleanly(seed: Int) throws {
        try Self.flipAndRead(Self.uncompressedCopy.get(), seed: UInt64(1000 + seed))
    }

    static func flipAndRead(_ file: URL, seed: UInt64) throws {
        var bytes = try [UInt8](Data(contentsOf: file))
        var generator = SeededGenerator(state: seed)
        var flipped: [Int] = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let offset = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[offset] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            flipped.append(offset)
        }
        if case .failure(let error) = try read(bytes) {
            let offset = try #require(error.byteOffset, "no offset in: \(error.message)")
            #expect(error.message.contains("at byte \(offset)"), "\(error.message)")
            #expect([.corrupt, .truncated, .unsupported].contains(error.code), "\(error.message) (flipped \(flipped))")
        }
    }
}
